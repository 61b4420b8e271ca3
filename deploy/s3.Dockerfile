# An S3-compatible server for bots and replays: versitygw over a folder,
# built from the Go module proxy (the same server the tests run). Only the
# binary is kept: the Go toolchain and module cache would add 1.5 GB.
FROM golang:1.27-bookworm AS build
RUN CGO_ENABLED=0 GOBIN=/out go install github.com/versity/versitygw/cmd/versitygw@v1.8.0

FROM debian:bookworm-slim
COPY --from=build /out/versitygw /usr/local/bin/versitygw
EXPOSE 7070
# A folder at the top of the root is a bucket: create the platform's.
ENTRYPOINT ["/bin/sh", "-c", "mkdir -p \"/data/$BUCKET\" && exec versitygw --port :7070 posix /data"]
