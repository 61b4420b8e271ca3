package web

import (
	_ "embed"
	"net/http"
)

// openAPI is the API's OpenAPI 3.1 description, written by hand beside
// the handlers; openapi_test.go holds it to the routes and to the answers.
//
//go:embed openapi.json
var openAPI []byte

// apiDescription serves the OpenAPI document as written.
func apiDescription(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(openAPI)
}
