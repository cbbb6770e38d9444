package storage

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Upstream change: for content whose URL keeps its name while the file
// changes ("latest" images), the server's description of the file (ETag,
// Last-Modified, Content-Length) is recorded at create and asked again
// (HEAD) at plan; a different answer means new content.

// fingerprintOf is the server's description of the file in a response.
func fingerprintOf(h http.Header, length int64) string {
	var parts []string
	if e := h.Get("ETag"); e != "" {
		parts = append(parts, "etag="+e)
	}
	if m := h.Get("Last-Modified"); m != "" {
		parts = append(parts, "last-modified="+m)
	}
	if length >= 0 {
		parts = append(parts, fmt.Sprintf("size=%d", length))
	}
	return strings.Join(parts, "; ")
}

// UpstreamFingerprint asks an http(s) server (HEAD) for its description of
// the file at raw; "" for other URLs, which have none.
func UpstreamFingerprint(ctx context.Context, raw string, opts FetchOptions) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", nil
	}
	client, err := clientFor(opts)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, u.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking %s for its ETag: %w", redact(raw), err)
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("asking %s for its ETag: HTTP status %s", redact(raw), resp.Status)
	}
	return fingerprintOf(resp.Header, resp.ContentLength), nil
}
