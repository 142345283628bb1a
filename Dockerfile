# The bot's image. No image is published: build it from this checkout (docker build -t quetbot .), or let
# compose.yaml build it. CI cannot run a container: it lints this file (hadolint) and runs the same two
# pip steps in a fresh venv (.ci/run).
#
# The base is the Python minor version the lock files are made with (.ci/lock), so every pinned wheel fits.

FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /venv
ENV PATH=/venv/bin:$PATH
WORKDIR /src
# The dependencies first, exactly as locked (a layer that outlives changes to the code).
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY . .
RUN pip install --no-cache-dir --no-deps .

FROM python:3.11-slim-bookworm
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /data --shell /usr/sbin/nologin quetbot \
    && mkdir /data \
    && chown quetbot:quetbot /data
COPY --from=build /venv /venv
# QUETBOT_DB: a SQLite file in the volume unless a postgresql:// URL is given (compose.yaml gives one).
# QUETBOT_HTTP: where /healthz (and /metrics) answer, for the HEALTHCHECK below.
ENV PATH=/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    QUETBOT_DB=/data/quetbot.sqlite3 \
    QUETBOT_HTTP=0.0.0.0:8080
VOLUME /data
WORKDIR /data
USER 10001:10001
EXPOSE 8080
# No curl in a slim image: Python asks /healthz on the port QUETBOT_HTTP names (an answer other than 200,
# or none, is an exception: a non-zero status).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ['QUETBOT_HTTP'].rpartition(':')[2]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]
ENTRYPOINT ["quetbot"]
