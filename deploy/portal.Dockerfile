# The portal: a static Go binary and the starter bots it seeds as house bots.
FROM golang:1.27-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/portal ./cmd/portal

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/portal /usr/local/bin/portal
COPY bots /srv/broadside/bots
WORKDIR /srv/broadside
ENV ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["portal"]
