package page

import "testing"

func TestFileSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{1024, "1.0 KiB"},
		{2150, "2.1 KiB"},
		{1<<20 - 1, "1024.0 KiB"},
		{1 << 20, "1.0 MiB"},
		{50 << 20, "50.0 MiB"},
	} {
		if got := fileSize(c.n); got != c.want {
			t.Errorf("fileSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
