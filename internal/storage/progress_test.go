package storage

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestReportProgress(t *testing.T) {
	old := ProgressInterval
	ProgressInterval = 20 * time.Millisecond
	defer func() { ProgressInterval = old }()
	var done atomic.Int64
	var mu sync.Mutex
	var lines []string
	var finals int
	stop := ReportProgress(done.Load, 4<<20, func(p Progress, final bool) {
		mu.Lock()
		defer mu.Unlock()
		if final {
			finals++
		}
		lines = append(lines, p.String())
	})
	for i := 0; i < 4; i++ {
		done.Add(1 << 20)
		time.Sleep(30 * time.Millisecond)
	}
	last := stop()
	mu.Lock()
	defer mu.Unlock()
	if len(lines) < 3 || finals != 1 {
		t.Fatalf("%d reports (%d final), want several and one final: %q", len(lines), finals, lines)
	}
	if last.Done != 4<<20 || !strings.Contains(lines[len(lines)-1], "of 4.0 MiB (4194304 bytes) (100%)") {
		t.Errorf("final report %q (%d bytes)", lines[len(lines)-1], last.Done)
	}
	if !strings.Contains(lines[0], "MiB/s") {
		t.Errorf("no rate in %q", lines[0])
	}
}
