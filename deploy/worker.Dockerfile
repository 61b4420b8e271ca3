# The worker: the engine, bubblewrap for the bot sandbox, and the toolchains
# that build and run contestants' bots (Python 3, Node.js, Java, C++, Go, Rust).
FROM golang:1.27-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/worker ./cmd/worker && CGO_ENABLED=0 go build -o /out/battleship ./cmd/battleship

FROM golang:1.27-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends \
      bubblewrap ca-certificates python3 python3-pip nodejs npm openjdk-17-jdk-headless \
      maven g++ make cmake rustc cargo mono-devel mono-xbuild zip unzip \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/worker /out/battleship /usr/local/bin/
WORKDIR /srv/broadside
ENTRYPOINT ["worker"]
