# DocGate application image: web (gunicorn), worker and beat share it.
# The portal's charts: Apache ECharts from npm, pinned by frontend/charts/package-lock.json, as `make charts` does.
FROM node:20-bookworm-slim AS charts
WORKDIR /charts
COPY frontend/charts/package.json frontend/charts/package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DOCGATE_DATA_DIR=/data
WORKDIR /app
COPY requirements.txt .
COPY rules/normalize/kernels.c rules/normalize/kernels_build.py rules/normalize/
# llama-cpp-python compiles llama.cpp: a compiler for the build, OpenMP at run time, and the portable
# x86-64-v3 target rather than -march=native (see the Makefile). The normalizer's kernels are compiled with the same
# compiler (`make kernels`); .dockerignore keeps a host's build out of the `COPY . .` below.
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential libgomp1 \
    && CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
       pip install --no-cache-dir -r requirements.txt \
    && python rules/normalize/kernels_build.py --require \
    && apt-get purge -y build-essential && apt-get autoremove -y \
    && apt-get install -y --no-install-recommends ocrmypdf tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-chi-tra \
       libreoffice-writer-nogui bubblewrap \
    && rm -rf /var/lib/apt/lists/*
COPY . .
COPY --from=charts /charts/node_modules/echarts/dist/echarts.min.js frontend/static/frontend/vendor/echarts.min.js
# uid 1000 is named in deploy/k8s (runAsUser), which must know it to run the pods as non-root.
RUN useradd --create-home --uid 1000 docgate && mkdir -p /data && chown docgate /data
USER docgate
EXPOSE 8000
CMD ["gunicorn", "-c", "python:config.gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "2"]
