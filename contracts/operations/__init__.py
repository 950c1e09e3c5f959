"""Operations: health and readiness probes, Prometheus metrics, Django system checks."""
