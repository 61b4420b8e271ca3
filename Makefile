# The two commands of the README: `make run` and `make test`.
.PHONY: run test build generate fmt vet bench

run:
	scripts/run.sh

test:
	scripts/test.sh

build:
	go build -o bin/ ./cmd/...

generate:
	templ generate

fmt:
	gofmt -l -w $$(git ls-files '*.go' | grep -v '_templ.go$$')

vet:
	go vet ./...

bench:
	go test -run '^$$' -bench . -benchmem ./internal/...
