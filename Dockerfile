# strata: the REST service with the bundled all-MiniLM-L6-v2 model, CPU only.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false

# The CPU build of torch first, so installing strata does not pull a multi-GB CUDA build.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

WORKDIR /app
COPY pyproject.toml README.md ./
COPY schemas ./schemas
COPY service ./service
RUN pip install . && rm -rf /app/build

RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin strata \
    && mkdir -p /data && chown strata /data
USER strata
VOLUME /data
EXPOSE 8080

HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/health', timeout=4)"]

CMD ["strata", "serve", "--host", "0.0.0.0", "--port", "8080", "--data-dir", "/data"]
