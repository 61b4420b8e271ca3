// Package testblob gives tests a real S3-compatible server on loopback: a
// versitygw gateway over a temporary folder, started by the test, so the
// blob store is exercised through the same S3 client and protocol that a
// production bucket uses.
//
// The server binary is TEST_S3_SERVER when set, else versitygw on PATH or
// in $(go env GOPATH)/bin (scripts/setup.sh --test installs it). A missing
// binary skips the test, or fails it where testenv.RequireAll is set.
package testblob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/broadside/broadside/internal/testenv"
)

// EnvServer names the variable pointing at the versitygw binary.
const EnvServer = "TEST_S3_SERVER"

// Credentials of the test servers' root account.
const (
	AccessKey = "broadside-test"
	SecretKey = "broadside-test-secret"
	Region    = "us-east-1"
)

// Server is a running S3 gateway of one test process or one test.
type Server struct {
	// Endpoint is the server's http://127.0.0.1:port address.
	Endpoint string
	root     string // the folder the server keeps its buckets in
	addr     string
	cmd      *exec.Cmd
	done     chan struct{}
	log      *testenv.Buffer // what the server prints, for errors
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Binary finds the versitygw binary.
func Binary() (string, error) {
	if p := os.Getenv(EnvServer); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("testblob: no versitygw binary: run scripts/setup.sh --test or set " + EnvServer)
}

// URL returns the s3:// URL of a fresh bucket on the process's shared
// server, and points this process's AWS credentials at that server.
func URL(t testing.TB) string {
	t.Helper()
	requireBinary(t)
	shared.once.Do(func() {
		shared.srv, shared.err = start(os.TempDir())
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv.NewBucket(t)
}

// Start runs a server for this test alone, stopped at cleanup: for tests
// that stop the server on purpose.
func Start(t testing.TB) *Server {
	t.Helper()
	requireBinary(t)
	s, err := start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// requireBinary stops the test when there is no versitygw to start.
func requireBinary(t testing.TB) {
	t.Helper()
	_, err := Binary()
	testenv.RequireErr(t, "versitygw", err)
}

// setEnv gives this process the test servers' credentials, as the AWS SDK
// reads them (the blob store takes them from the environment). They are
// the same for every test server, so parallel tests may share them.
func setEnv() error {
	for _, kv := range Env() {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("testblob: %w", err)
		}
	}
	return nil
}

// Env lists the variables a portal or worker process needs to reach the
// test servers.
func Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + SecretKey,
		"AWS_REGION=" + Region,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

func start(parent string) (*Server, error) {
	if err := setEnv(); err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp(parent, "broadside-s3-")
	if err != nil {
		return nil, fmt.Errorf("testblob: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{root: root, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	s.Endpoint = "http://" + s.addr
	if err := s.run(); err != nil {
		return nil, err
	}
	return s, nil
}

// Restart starts a stopped server again on the same address and folder,
// with everything it stored.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) run() error {
	bin, err := Binary()
	if err != nil {
		return err
	}
	s.done, s.log = make(chan struct{}), &testenv.Buffer{}
	s.cmd = exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--region", Region,
		"--port", s.addr, "--quiet", "posix", s.root)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// The server must not outlive a test process that dies.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("testblob: start %s: %w", bin, err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("testblob: %s exited: %s", bin, s.log.String())
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("testblob: %s not answering on %s: %v\n%s", bin, s.addr, err, s.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills the server and waits for it to exit.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}

// BucketURL is the s3:// URL the blob store opens for bucket.
func (s *Server) BucketURL(bucket string) string {
	q := url.Values{}
	q.Set("endpoint", s.Endpoint)
	q.Set("region", Region)
	q.Set("use_path_style", "true")
	q.Set("disable_https", "true")
	return "s3://" + bucket + "?" + q.Encode()
}

// NewBucket creates an empty bucket and returns its URL.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "test-" + hex.EncodeToString(b[:])
	client := s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       Region,
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("testblob: create bucket %s: %v", name, err)
	}
	return s.BucketURL(name)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("testblob: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
