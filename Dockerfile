# fieldhub in a small image: the single-file executable that scripts/build makes,
# on debian:bookworm-slim with nothing else of the source tree (docs/install.md).
#
#   docker build -t fieldhub --build-arg FIELDHUB_COMMIT=$(git rev-parse --short HEAD) .
#   docker run -d -p 8080:8080 -v fieldhub-data:/var/lib/fieldhub \
#     -v /srv/fieldhub.yaml:/etc/fieldhub/fieldhub.yaml:ro \
#     --device /dev/ttyUSB0 --group-add dialout fieldhub
#
# The build stage runs on the builder's own platform and cross-compiles for the
# image's (TARGETARCH: amd64 or arm64), as scripts/build does anywhere else.

FROM --platform=$BUILDPLATFORM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ARG TARGETARCH
ARG FIELDHUB_COMMIT=unknown
RUN case "${TARGETARCH:-$(dpkg --print-architecture)}" in \
      amd64) arch=x64 ;; \
      arm64) arch=arm64 ;; \
      *) echo "fieldhub builds for amd64 and arm64, not ${TARGETARCH}" >&2; exit 1 ;; \
    esac \
 && FIELDHUB_COMMIT="$FIELDHUB_COMMIT" scripts/build --target "linux-$arch" --out dist \
 && cp "dist/fieldhub-linux-$arch" dist/fieldhub

FROM debian:bookworm-slim
RUN groupadd --gid 10001 fieldhub \
 && useradd --uid 10001 --gid fieldhub --groups dialout --no-create-home \
      --home-dir /var/lib/fieldhub --shell /usr/sbin/nologin fieldhub \
 && install -d -o fieldhub -g fieldhub -m 0750 /var/lib/fieldhub \
 && install -d -m 0755 /etc/fieldhub
COPY --from=build /src/dist/fieldhub /usr/local/bin/fieldhub
# A default config (one organisation, nothing polled); bind-mount your own over it.
COPY fieldhub.example.yaml /etc/fieldhub/fieldhub.yaml
# JavaScriptCore sizes its heap's growth by the machine's RAM; told 64 MB it
# collects before the heap doubles (docs/benchmarks.md, "Footprint"; install.sh's unit sets the same).
ENV BUN_JSC_forceRAMSize=67108864
USER fieldhub
WORKDIR /var/lib/fieldhub
VOLUME /var/lib/fieldhub
EXPOSE 8080
# /healthz answers 200 while the store takes writes. No curl in the image: bash's
# /dev/tcp sends the request. The port is the config's server.port (default 8080).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/fieldhub", "serve", "--config", "/etc/fieldhub/fieldhub.yaml", "--data", "/var/lib/fieldhub"]
