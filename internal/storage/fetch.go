package storage

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FetchOptions are how content is downloaded and checked.
type FetchOptions struct {
	// CAFile is a PEM bundle of the certificate authorities an https server
	// is verified against instead of the system's.
	CAFile string
	// Insecure skips the verification of https servers' certificates.
	Insecure bool
	// Checksum, when set, is the digest the content as sent must have: the
	// content's reader fails at its end when it differs.
	Checksum *Checksum
	// CacheDir, with Checksum, is a folder keeping content by its digest
	// (see cache.go): content found there is read instead of downloaded.
	CacheDir string
	// CacheMaxBytes, when > 0, bounds the size of CacheDir: the files used
	// least recently are removed when content enters or is read from it.
	CacheMaxBytes int64
}

// Retries is how often a download is tried again after a failed request or
// a connection lost mid-stream (resumed with an HTTP Range request from the
// byte reached); RetryBackoff is the first pause, doubled each time.
var (
	Retries      = 4
	RetryBackoff = time.Second
)

// clients holds one http.Client per TLS setting, so that connections are
// reused between the volumes of one apply.
var clients sync.Map // tlsKey -> *http.Client

type tlsKey struct {
	caFile   string
	insecure bool
}

func clientFor(opts FetchOptions) (*http.Client, error) {
	if opts.CAFile == "" && !opts.Insecure {
		return httpClient, nil
	}
	key := tlsKey{opts.CAFile, opts.Insecure}
	if c, ok := clients.Load(key); ok {
		return c.(*http.Client), nil
	}
	cfg := &tls.Config{InsecureSkipVerify: opts.Insecure} //nolint:gosec // the user's explicit choice, warned about at plan
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the CA bundle: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the CA bundle %s holds no PEM certificate", opts.CAFile)
		}
		cfg.RootCAs = pool
	}
	t := httpClient.Transport.(*http.Transport).Clone()
	t.TLSClientConfig = cfg
	c, _ := clients.LoadOrStore(key, &http.Client{Transport: t})
	return c.(*http.Client), nil
}

// resumingBody is an HTTP response body that survives lost connections: a
// read failing before the announced end is retried (at most Retries times
// in all, with backoff) by a Range request for the rest, guarded by If-Range
// so that content changed on the server is never spliced onto the old. The
// bytes it delivers are therefore the one file, whatever the failures.
type resumingBody struct {
	ctx     context.Context
	client  *http.Client
	url     string // the request URL (with credentials)
	shown   string // the URL for messages (credentials masked)
	size    int64  // -1 when unknown: a lost connection cannot be told from the end
	validor string // ETag or Last-Modified of the first response, for If-Range

	mu      sync.Mutex
	body    io.ReadCloser
	cancel  context.CancelFunc
	n       int64
	retries int
}

// get sends a GET, retrying failed requests and server errors; from > 0
// asks for the content from that byte.
func (b *resumingBody) get(from int64) (*http.Response, error) {
	var lastErr error
	for {
		ctx, cancel := context.WithCancel(b.ctx)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url, nil)
		if err != nil {
			cancel()
			return nil, err
		}
		if from > 0 {
			req.Header.Set("Range", "bytes="+strconv.FormatInt(from, 10)+"-")
			if b.validor != "" {
				req.Header.Set("If-Range", b.validor)
			}
		}
		resp, err := b.client.Do(req)
		switch {
		case err != nil:
			lastErr = err
		case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
			resp.Body.Close()
			lastErr = fmt.Errorf("HTTP status %s", resp.Status)
		default:
			b.mu.Lock()
			b.cancel = cancel
			b.mu.Unlock()
			return resp, nil
		}
		cancel()
		if b.retries >= Retries || b.ctx.Err() != nil || isPermanent(err) {
			if b.retries > 0 {
				return nil, fmt.Errorf("%w (after %d retries)", lastErr, b.retries)
			}
			return nil, lastErr
		}
		if err := b.pause(); err != nil {
			return nil, lastErr
		}
	}
}

// pause waits before the next try: RetryBackoff, doubled for each retry made.
func (b *resumingBody) pause() error {
	d := RetryBackoff << b.retries
	b.retries++
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-b.ctx.Done():
		return b.ctx.Err()
	}
}

func (b *resumingBody) Read(p []byte) (int, error) {
	for {
		n, err := b.body.Read(p)
		b.n += int64(n)
		if err == nil || errors.Is(err, io.EOF) || n > 0 {
			if errors.Is(err, io.EOF) && b.size >= 0 && b.n < b.size {
				err = io.ErrUnexpectedEOF // a server closing early: resumable like a drop
				if n > 0 {
					return n, nil // deliver first, resume on the next read
				}
			} else {
				return n, err
			}
		}
		if rerr := b.resume(err); rerr != nil {
			return 0, rerr
		}
	}
}

// resume replaces the broken body with the rest of the content, or returns
// why it cannot.
func (b *resumingBody) resume(cause error) error {
	if b.size < 0 || b.retries >= Retries || b.ctx.Err() != nil {
		if b.retries > 0 {
			return fmt.Errorf("%w (after %d retries)", cause, b.retries)
		}
		return cause
	}
	b.body.Close()
	b.stop()
	if err := b.pause(); err != nil {
		return cause
	}
	resp, err := b.get(b.n)
	if err != nil {
		return fmt.Errorf("resuming at byte %d of %d: %w (connection lost: %v)", b.n, b.size, err, cause)
	}
	if resp.StatusCode != http.StatusPartialContent || !strings.HasPrefix(resp.Header.Get("Content-Range"), "bytes "+strconv.FormatInt(b.n, 10)+"-") {
		resp.Body.Close()
		why := "the server does not serve byte ranges"
		if resp.StatusCode == http.StatusOK && b.validor != "" {
			why = "the content changed on the server (or it ignores Range)"
		}
		return fmt.Errorf("cannot resume at byte %d: %s (HTTP status %s): %w", b.n, why, resp.Status, cause)
	}
	b.body = resp.Body
	return nil
}

// stop aborts the current request (the stall timer calls it); the read
// that fails is then resumed.
func (b *resumingBody) stop() {
	b.mu.Lock()
	if b.cancel != nil {
		b.cancel()
	}
	b.mu.Unlock()
}

func (b *resumingBody) Close() error {
	err := b.body.Close()
	b.stop()
	return err
}

// validatorOf is what If-Range can compare: a strong ETag, else Last-Modified.
func validatorOf(h http.Header) string {
	if e := h.Get("ETag"); e != "" && !strings.HasPrefix(e, "W/") {
		return e
	}
	return h.Get("Last-Modified")
}

// isPermanent tells request failures that trying again cannot fix: a
// server certificate that is not trusted.
func isPermanent(err error) bool {
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname)
}
