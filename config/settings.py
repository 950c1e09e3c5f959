"""DocGate settings: one file, read from the environment, with embedded defaults (SQLite, file broker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from config.env import database_from_url, envbool, envfloat, envint, envrate, envstr, secret_key_file
from rules.safety_thresholds import (
    DEFAULT_BLOCK_THRESHOLD,
    DEFAULT_CASCADE_MODEL_RISK,
    DEFAULT_KIND_THRESHOLDS,
    DEFAULT_REVIEW_THRESHOLD,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# Everything DocGate writes at run time (SQLite file, broker folders, uploads) lives under one folder.
DATA_DIR = Path(envstr("DOCGATE_DATA_DIR", str(BASE_DIR / "var"))).resolve()

SECRET_KEY = envstr("SECRET_KEY") or secret_key_file(DATA_DIR / "secret_key")
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = [h.strip() for h in envstr("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")]
CSRF_TRUSTED_ORIGINS = [o for o in envstr("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# One switch for a deployment behind a TLS-terminating reverse proxy (compose sets it): secure cookies, HSTS, every
# plain-HTTP request redirected to https, and the proxy's `X-Forwarded-Proto` believed. That last is safe only
# when nothing but the proxy reaches the web server (compose publishes it on 127.0.0.1) and the proxy sets the
# header itself. Off, the embedded `make run` serves plain http://127.0.0.1:8000/.
DOCGATE_BEHIND_TLS = envbool("DOCGATE_BEHIND_TLS", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = DOCGATE_BEHIND_TLS
SECURE_HSTS_SECONDS = 31_536_000 if DOCGATE_BEHIND_TLS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = DOCGATE_BEHIND_TLS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if DOCGATE_BEHIND_TLS else None
# The probes and the scrape come from inside (the orchestrator, Prometheus) over plain HTTP to the web service.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^livez$", r"^readyz$", r"^metrics$"]
# HSTS preloading is a commitment of the domain's owner (hstspreload.org, slow to undo), not DocGate's to make.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_prometheus",
    "contracts",
    "frontend",
]

MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # First of all: every answer, refusals of oversized bodies included, is in the language the request asks for
    # (Accept-Language, or the portal's language cookie; LANGUAGE_CODE without either). It reads no session.
    "django.middleware.locale.LocaleMiddleware",
    # Before anything reads a body (the CSRF check reads forms): Content-Length vetted, chunked bodies capped.
    "contracts.intake.body_limit.RequestBodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "frontend.access.portal",
            ],
        },
    },
]

DATABASE_URL = envstr("DATABASE_URL")
DATABASES = {"default": database_from_url(DATABASE_URL, default_sqlite=DATA_DIR / "docgate.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "frontend" / "locale"]
TIME_ZONE = envstr("TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Originals are stored under generated names below MEDIA_ROOT and never served from a user-chosen path.
MEDIA_ROOT = DATA_DIR / "media"
MEDIA_URL = "/media-not-served/"
# Trained artifacts (ticket classifiers per organisation) live outside the code.
DOCGATE_MODELS_DIR = Path(envstr("DOCGATE_MODELS_DIR", str(DATA_DIR / "models")))

LOGIN_URL = "/accounts/login/"

# --- Operators -----------------------------------------------------------------------------------------------
# When set, /metrics requires `Authorization: Bearer <token>`. Without it /metrics is closed, unless the web server
# binds a loopback or private address (DOCGATE_BIND: `runstack --bind` passes its own on; `make run`'s is 127.0.0.1).
PROMETHEUS_METRICS_TOKEN = envstr("PROMETHEUS_METRICS_TOKEN", "")
DOCGATE_BIND = envstr("DOCGATE_BIND", "")
PROMETHEUS_EXPORT_MIGRATIONS = False

# --- Intake limits -------------------------------------------------------------------------------------------
DOCGATE_MAX_UPLOAD_BYTES = envint("DOCGATE_MAX_UPLOAD_BYTES", 10 * 1024 * 1024)
DOCGATE_MAX_TEXT_CHARS = envint("DOCGATE_MAX_TEXT_CHARS", 2_000_000)
DOCGATE_MAX_UNZIPPED_BYTES = envint("DOCGATE_MAX_UNZIPPED_BYTES", 50 * 1024 * 1024)
DOCGATE_MAX_PDF_PAGES = envint("DOCGATE_MAX_PDF_PAGES", 500)
# LibreOffice or OCR on one document in the worker; past it the converter's process group is killed.
DOCGATE_CONVERSION_TIMEOUT_S = envfloat("DOCGATE_CONVERSION_TIMEOUT_S", 300.0)
# An OCRed page whose mean word confidence (Tesseract, 0-100) is below this sends the job to review.
DOCGATE_OCR_MIN_CONFIDENCE = envfloat("DOCGATE_OCR_MIN_CONFIDENCE", 70.0)
# Room for multipart framing around a file at the size limit; Django rejects larger bodies itself.
DATA_UPLOAD_MAX_MEMORY_SIZE = DOCGATE_MAX_UPLOAD_BYTES + 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440

# --- Jobs ----------------------------------------------------------------------------------------------------
DOCGATE_JOB_LEASE_S = envint("DOCGATE_JOB_LEASE_S", 600)
DOCGATE_JOB_QUEUED_DEADLINE_S = envint("DOCGATE_JOB_QUEUED_DEADLINE_S", 300)
DOCGATE_JOB_MAX_ATTEMPTS = envint("DOCGATE_JOB_MAX_ATTEMPTS", 5)
DOCGATE_SWEEP_INTERVAL_S = envint("DOCGATE_SWEEP_INTERVAL_S", 60)
# Test-only hook, not a product setting: dotted paths of stage classes appended to every job's pipeline (the fault
# tests add one that pauses so that a worker can be killed mid-job).
DOCGATE_EXTRA_STAGES: tuple[str, ...] = ()
DOCGATE_RETRY_BACKOFF_S = envint("DOCGATE_RETRY_BACKOFF_S", 5)
# An Idempotency-Key's first answer is replayed for this long; beat then deletes its record and the key is free.
DOCGATE_IDEMPOTENCY_TTL_S = envint("DOCGATE_IDEMPOTENCY_TTL_S", 86_400)

# --- Ticket deadlines ---------------------------------------------------------------------------------------
# A ticket is due soon once only this share of its allowed time is left (on its tier's clock: hours, or working
# days); beat looks for tickets due soon and overdue this often, and raises their open review task's priority to at
# least these (the gate's holds are 90-100: an overdue ticket goes first).
DOCGATE_DEADLINE_DUE_SOON_SHARE = envfloat("DOCGATE_DEADLINE_DUE_SOON_SHARE", 0.2)
DOCGATE_DEADLINE_SWEEP_INTERVAL_S = envint("DOCGATE_DEADLINE_SWEEP_INTERVAL_S", 60)
DOCGATE_DEADLINE_PRIORITY = {
    "due_soon": envint("DOCGATE_DEADLINE_PRIORITY_DUE_SOON", 95),
    "overdue": envint("DOCGATE_DEADLINE_PRIORITY_OVERDUE", 110),
}
# How far in the future a platform's `received_at` (or a progress report's `at`) may lie: its clock may run ahead.
DOCGATE_RECEIVED_AT_SKEW_S = envint("DOCGATE_RECEIVED_AT_SKEW_S", 300)

# --- Review and webhooks ------------------------------------------------------------------------------------
DOCGATE_REVIEW_CLAIM_S = envint("DOCGATE_REVIEW_CLAIM_S", 900)
# Only for tests and closed networks: lets webhooks go to http:// and loopback/private addresses.
DOCGATE_WEBHOOK_ALLOW_PRIVATE = envbool("DOCGATE_WEBHOOK_ALLOW_PRIVATE", False)
DOCGATE_WEBHOOK_MAX_ATTEMPTS = envint("DOCGATE_WEBHOOK_MAX_ATTEMPTS", 8)
DOCGATE_WEBHOOK_BACKOFF_S = envint("DOCGATE_WEBHOOK_BACKOFF_S", 30)
# One attempt, from connecting to the last byte read, whatever the receiver does (trickling bytes, an endless
# body): past it the attempt has failed and is retried. Connecting gets the first part of it.
DOCGATE_WEBHOOK_TIMEOUT_S = envfloat("DOCGATE_WEBHOOK_TIMEOUT_S", 10.0)
DOCGATE_WEBHOOK_CONNECT_TIMEOUT_S = envfloat("DOCGATE_WEBHOOK_CONNECT_TIMEOUT_S", 5.0)
# A worker sending a delivery holds it this long (and, for its request, the attempt's bound and 10 s more).
DOCGATE_WEBHOOK_LEASE_S = envfloat("DOCGATE_WEBHOOK_LEASE_S", 30.0)
# After a secret is rotated, deliveries carry signatures under both the new and the old one for this long (0: none).
DOCGATE_WEBHOOK_SECRET_OVERLAP_S = envint("DOCGATE_WEBHOOK_SECRET_OVERLAP_S", 86_400)
# Beat resends a pending delivery whose message was lost (a broker restart, a killed worker) this often, once its
# retry is overdue by the grace (a message still queued is left alone).
DOCGATE_WEBHOOK_SWEEP_INTERVAL_S = envint("DOCGATE_WEBHOOK_SWEEP_INTERVAL_S", 300)
DOCGATE_WEBHOOK_SWEEP_GRACE_S = envint("DOCGATE_WEBHOOK_SWEEP_GRACE_S", 600)

# --- LLM and gate (used by the inference layer) --------------------------------------------------------------
LLM_BASE_URL = envstr("LLM_BASE_URL", "http://127.0.0.1:8088/v1")
LLM_MODEL = envstr("LLM_MODEL", "gemma-3-270m")
LLM_ENGINE = envstr("LLM_ENGINE", "llamacpp")
LLM_TIMEOUT_S = envfloat("LLM_TIMEOUT_S", 60.0)
# Off means rules only by the operator's choice (not a degraded result).
LLM_ENABLED = envbool("LLM_ENABLED", True)
LLM_MAX_RETRIES = envint("LLM_MAX_RETRIES", 2)
LLM_MAX_CONCURRENCY = envint("LLM_MAX_CONCURRENCY", 4)
LLM_BREAKER_FAILURES = envint("LLM_BREAKER_FAILURES", 3)
LLM_BREAKER_COOLDOWN_S = envfloat("LLM_BREAKER_COOLDOWN_S", 30.0)
# The embedded llama.cpp server runs with a 2K window; Gemma 2 9B on vLLM has 8K (set in docker-compose.yml).
LLM_CONTEXT_TOKENS = envint("LLM_CONTEXT_TOKENS", 2048)
LLM_MAX_OUTPUT_TOKENS = envint("LLM_MAX_OUTPUT_TOKENS", 256)
# `manage.py runstack` starts the local llama.cpp server when LLM_BASE_URL points at this machine.
DOCGATE_LOCAL_LLM = envbool("DOCGATE_LOCAL_LLM", True)
# …at this `nice` level: on a shared machine the rules and the web come first, the model takes the CPU they leave.
DOCGATE_LOCAL_LLM_NICE = envint("DOCGATE_LOCAL_LLM_NICE", 10)
DOCGATE_LLM_MODEL_DIR = Path(envstr("DOCGATE_LLM_MODEL_DIR", str(DATA_DIR / "llm")))
# The lexicon's thresholds everywhere; the learned model's per document kind (ticket, contract, outgoing).
SAFETY_BLOCK_THRESHOLD = envfloat("SAFETY_BLOCK_THRESHOLD", DEFAULT_BLOCK_THRESHOLD)
SAFETY_REVIEW_THRESHOLD = envfloat("SAFETY_REVIEW_THRESHOLD", DEFAULT_REVIEW_THRESHOLD)
SAFETY_POLICIES = {
    kind: (
        envfloat(f"SAFETY_{kind.upper()}_REVIEW_THRESHOLD", review),
        envfloat(f"SAFETY_{kind.upper()}_BLOCK_THRESHOLD", block),
    )
    for kind, (review, block) in DEFAULT_KIND_THRESHOLDS.items()
}
# The LLM policy check looks at no more than this many chunks of a long document.
SAFETY_LLM_MAX_CHUNKS = envint("SAFETY_LLM_MAX_CHUNKS", 4)
# Routing: a ticket category below this confidence, and this share of jobs at random, go to a reviewer.
DOCGATE_MIN_CONFIDENCE = envfloat("DOCGATE_MIN_CONFIDENCE", 0.5)
DOCGATE_QA_SAMPLE_RATE = envfloat("DOCGATE_QA_SAMPLE_RATE", 0.0)
# Repeat cases: a ticket is compared with its organisation's tickets of this many days before it (the README).
DOCGATE_REPEAT_WINDOW_DAYS = envint("DOCGATE_REPEAT_WINDOW_DAYS", 30)
# = rules.tickets.repeats.DEFAULT_THRESHOLD, not imported (settings load no rule packages); a test holds them equal.
DOCGATE_REPEAT_THRESHOLD = envfloat("DOCGATE_REPEAT_THRESHOLD", 0.35)
# Model-written drafts and summaries: on with vLLM (Gemma 2 9B-it); the embedded base model cannot write them.
LLM_DRAFTS = envbool("LLM_DRAFTS", LLM_ENGINE == "vllm")
# What the model is asked (contracts.cascade): `cascade` what the rules leave in doubt, `always`, or `off`.
LLM_POLICY = envstr("LLM_POLICY", "cascade")
if LLM_POLICY not in ("cascade", "always", "off"):
    raise ValueError(f"LLM_POLICY must be cascade, always or off, not {LLM_POLICY!r}")
# Under cascade: clause types with rule evidence below this confidence are asked about; the gate question from the
# lexicon's risk or the safety model's P(unsafe) per kind on (README, "The LLM layer").
LLM_CASCADE_CLAUSE_CONFIDENCE = envfloat("LLM_CASCADE_CLAUSE_CONFIDENCE", 0.85)
LLM_CASCADE_GATE_RISK = envfloat("LLM_CASCADE_GATE_RISK", 0.2)
LLM_CASCADE_GATE_MODEL_RISK = {
    kind: envfloat(
        f"LLM_CASCADE_GATE_MODEL_RISK_{kind.upper()}", DEFAULT_CASCADE_MODEL_RISK.get(kind, LLM_CASCADE_GATE_RISK)
    )
    for kind in ("ticket", "contract")
}
# The model earns its place (contracts.standing; README): a floor of 0 asks always.
LLM_STANDING_FLOOR = envfloat("LLM_STANDING_FLOOR", 0.3)
LLM_STANDING_WINDOW = envint("LLM_STANDING_WINDOW", 20)
LLM_STANDING_MIN_ANSWERS = envint("LLM_STANDING_MIN_ANSWERS", 5)
LLM_STANDING_PROBE_EVERY = envint("LLM_STANDING_PROBE_EVERY", 10)
LLM_STANDING_PROBE_AFTER_S = envfloat("LLM_STANDING_PROBE_AFTER_S", 3600.0)
# While the model is down a job keeps its provisional result and waits this long, then goes to review.
DOCGATE_LLM_WAIT_MAX_S = envfloat("DOCGATE_LLM_WAIT_MAX_S", 900.0)

# --- Celery --------------------------------------------------------------------------------------------------
REDIS_URL = envstr("REDIS_URL")
BROKER_DIR = DATA_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # Longer than any job lease, so Redis does not redeliver a message that a live worker still holds.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT_S", 3600),
    }
    CELERY_WORKER_ENABLE_REMOTE_CONTROL = True
else:
    CELERY_BROKER_URL = "filesystem://"
    # kombu's file transport, with messages renamed into place whole (a worker read one half-written and stopped).
    CELERY_BROKER_TRANSPORT = "contracts.operations.file_transport:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        # How often an idle worker looks for new messages (kombu's default is 1 s): the wait before a job starts.
        "polling_interval": envfloat("DOCGATE_FILE_BROKER_POLL_S", 0.2),
    }
    # The file transport has no broadcast channel for remote control commands.
    CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
# Queues by cost, each with its own workers: the rules of a document read from a file (`-Q convert`: parsing,
# LibreOffice, OCR take seconds to minutes), a job's model questions (`-Q llm`), webhook deliveries (`-Q webhooks`:
# a slow receiver delays other deliveries at most, never jobs); the rules of texts and the periodic tasks on the
# default queue (`celery`), where nothing slow runs.
CELERY_TASK_ROUTES = {
    "contracts.tasks.job_convert_task": {"queue": "convert"},
    "contracts.tasks.job_llm_task": {"queue": "llm"},
    "contracts.tasks.webhook_deliver_task": {"queue": "webhooks"},
}
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
# Workers import the desks' task modules (autodiscovery finds `contracts.tasks` only).
CELERY_IMPORTS = ("contracts.hotline.deadlines.tasks",)
CELERY_BEAT_SCHEDULE = {
    "escalate-ticket-deadlines": {
        "task": "contracts.hotline.deadlines.tasks.ticket_deadlines_escalate_task",
        "schedule": float(DOCGATE_DEADLINE_SWEEP_INTERVAL_S),
    },
    "resend-lost-webhooks": {
        "task": "contracts.tasks.webhook_deliveries_sweep_task",
        "schedule": float(DOCGATE_WEBHOOK_SWEEP_INTERVAL_S),
    },
    "sweep-stuck-jobs": {"task": "contracts.tasks.jobs_sweep_task", "schedule": float(DOCGATE_SWEEP_INTERVAL_S)},
    # An indexed range delete: cheap, so often enough that a key outlives its TTL by minutes at most.
    "expire-idempotency-records": {"task": "contracts.tasks.idempotency_records_expire_task", "schedule": 600.0},
    "forget-unread-llm-answers": {"task": "contracts.tasks.llm_answers_expire_task", "schedule": 3600.0},
}

# --- Cache and request budgets -------------------------------------------------------------------------------
# Request budgets are counted here, so every web process must see the same cache: Redis when there is one, else
# files under DATA_DIR (the embedded stack's gunicorn workers share one machine).
CACHE_URL = envstr("DOCGATE_CACHE_URL", REDIS_URL)
CACHES: dict[str, dict[str, Any]]
if CACHE_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL, "KEY_PREFIX": "dg"}
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
            "OPTIONS": {"MAX_ENTRIES": 10_000},
        }
    }
# Per API key and per portal user, per window (`N/s|min|hour|day`, or `off`): document submissions (API and portal
# uploads) and API reads (GET) each have their own budget; past it the answer is 429 with Retry-After.
DOCGATE_THROTTLE_SUBMIT = envrate("DOCGATE_THROTTLE_SUBMIT", "60/min")
DOCGATE_THROTTLE_READ = envrate("DOCGATE_THROTTLE_READ", "600/min")
# Sign-in attempts per account name (portal and /admin/), counted before the password is checked: right or wrong,
# past it the answer is "try again later". Per client address belongs to the reverse proxy, which sees it.
DOCGATE_THROTTLE_LOGIN = envrate("DOCGATE_THROTTLE_LOGIN", "20/hour")

# --- REST API ------------------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "contracts.api.auth.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["contracts.api.permissions.IsOrganisationMember"],
    # A JSON body nested thousands deep is a 400 everywhere, never a RecursionError.
    "DEFAULT_PARSER_CLASSES": [
        "contracts.api.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Reads count against the caller's read budget; DocumentViewSet counts submissions against the submit budget.
    "DEFAULT_THROTTLE_CLASSES": ["contracts.api.throttling.ReadThrottle"],
    "DEFAULT_PAGINATION_CLASS": "contracts.api.pagination.PageSizePagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "contracts.api.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "DocGate API",
    "DESCRIPTION": "Submit Chinese contracts and citizen tickets; poll jobs; read reviewed results.",
    "VERSION": "1.0.0",
    # 3.1: the result's types come from pydantic's JSON Schema (nullable as `anyOf [..., {"type": "null"}]`).
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "contracts.api.schema.query_enums_named",
    ],
    "ENUM_NAME_OVERRIDES": {
        "JobStateEnum": "contracts.models.JobState",
        "ReviewStateEnum": "contracts.models.ReviewState",
        "DeliveryStateEnum": "contracts.models.DeliveryState",
        "DocumentKindEnum": "contracts.models.DocumentKind",
        "DocumentSourceEnum": "contracts.models.DocumentSource",
        "GateDecisionEnum": "contracts.result_data.GATE_DECISIONS",
        "FindingKindEnum": "contracts.findings.FINDING_KINDS",
        "FindingSourceEnum": "contracts.findings.FINDING_SOURCES",
        "ReviewDecisionEnum": "contracts.models.ReviewDecision",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"mask_pii": {"()": "contracts.logfilters.PiiMaskingFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["mask_pii"]}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
    # httpx logs every LLM and tokenizer request at INFO; DocGate records what matters in provenance.
    "loggers": {"django.db.backends": {"level": "WARNING"}, "httpx": {"level": "WARNING"}},
}

# --- Learning from reviewers (contracts.learned) -------------------------------------------------------------------
from config.learning import *  # noqa: E402, F403  (retrain and train_adapter settings; beat's interval here, 0: off)

DOCGATE_RETRAIN_INTERVAL_S = envint("DOCGATE_RETRAIN_INTERVAL_S", 0)
if DOCGATE_RETRAIN_INTERVAL_S > 0:
    RETRAIN_TASK = {"task": "contracts.tasks.organisations_retrain_task", "schedule": float(DOCGATE_RETRAIN_INTERVAL_S)}
    CELERY_BEAT_SCHEDULE["retrain-organisations"] = RETRAIN_TASK
