package storage

import (
	"fmt"
	"sync"
	"time"
)

// Progress is how far a long transfer (an upload, a clone) has come.
type Progress struct {
	Done    int64 // bytes so far
	Total   int64 // bytes in all, -1 when unknown
	Elapsed time.Duration
}

// Rate is the average speed so far in bytes per second.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Done) / p.Elapsed.Seconds()
}

func (p Progress) String() string {
	done := HumanBytes(uint64(p.Done))
	rate := fmt.Sprintf("%.1f MiB/s", p.Rate()/(1<<20))
	if p.Total < 0 {
		return fmt.Sprintf("%s of unknown size, %s", done, rate)
	}
	pct := 100.0
	if p.Total > 0 {
		pct = 100 * float64(p.Done) / float64(p.Total)
	}
	return fmt.Sprintf("%s of %s (%.0f%%), %s", done, HumanBytes(uint64(p.Total)), pct, rate)
}

// ProgressInterval is how often ReportProgress reports.
var ProgressInterval = 5 * time.Second

// ReportProgress calls report every ProgressInterval with the bytes done()
// gives, from a goroutine of its own, until the returned stop is called; stop
// reports once more, the final figure, and returns it.
func ReportProgress(done func() int64, total int64, report func(p Progress, final bool)) (stop func() Progress) {
	start := time.Now()
	ticker := time.NewTicker(ProgressInterval)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-quit:
				return
			case <-ticker.C:
				report(Progress{Done: done(), Total: total, Elapsed: time.Since(start)}, false)
			}
		}
	}()
	return func() Progress {
		ticker.Stop()
		close(quit)
		wg.Wait()
		p := Progress{Done: done(), Total: total, Elapsed: time.Since(start)}
		report(p, true)
		return p
	}
}
