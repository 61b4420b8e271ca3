package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

// The bench's own database and bucket: a fresh database, bot uploads
// and replays read back.

// freshDatabase creates an empty database and returns its URL and a func
// that drops it.
func freshDatabase(ctx context.Context, admin, name string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", admin, err)
	}
	defer conn.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`); err != nil {
		return "", nil, err
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+ident); err != nil {
		return "", nil, err
	}
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		return "", nil, err
	}
	url := strings.Replace(admin, "/"+cfg.Database+"?", "/"+name+"?", 1)
	if !strings.Contains(url, "/"+name) {
		return "", nil, fmt.Errorf("cannot place database %s in %s", name, admin)
	}
	drop := func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`)
	}
	return url, drop, nil
}

// upload records a bot zip through the portal's own upload service.
func upload(ctx context.Context, pool *pgxpool.Pool, bucket *blob.Bucket, client *jobs.Client, owner int64, name string, data []byte) (int64, error) {
	limits := botzip.DefaultLimits()
	svc := botupload.New(store.New(pool), bucket, client, botupload.ZipInspector{Limits: limits},
		slog.New(slog.DiscardHandler), botupload.Limits{MaxBytes: limits.MaxZipBytes}, rulesets.Registry())
	res, err := svc.Save(ctx, botupload.Upload{OwnerID: owner, Name: name, Zip: bytes.NewReader(data), Size: int64(len(data))})
	if err != nil {
		return 0, err
	}
	return res.VersionID, nil
}

func unzipBlob(ctx context.Context, bucket *blob.Bucket, key, dir string) error {
	data, err := bucket.ReadAll(ctx, key)
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for _, f := range zr.File {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return fmt.Errorf("replay entry %q leaves its folder", f.Name)
		}
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		body, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}
