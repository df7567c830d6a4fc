package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The buckets of the web process's request histogram (domain/metrics.ts), so the two read alike.
var buckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type gateMetrics struct {
	forwarded      atomic.Int64
	upstreamErrors atomic.Int64
	cacheHits      atomic.Int64
	cacheMisses    atomic.Int64
	notModified    atomic.Int64
	renderErrors   atomic.Int64
	renewals       atomic.Int64
	mu             sync.Mutex
	counts         [12]int64 // per bucket, the last +Inf
	sum            float64
	total          int64
}

func (m *gateMetrics) observe(d time.Duration) {
	s := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	i := 0
	for i < len(buckets) && s > buckets[i] {
		i++
	}
	m.counts[i]++
	m.sum += s
	m.total++
}

// serveMetrics: Prometheus text, which the web process's /metrics appends to its own
// (TILEGATE_METRICS_URL), so one scrape shows both.
func (g *gate) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	m := g.metrics
	var b strings.Builder
	counter := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	counter("tilegate_forwarded_requests_total", "Requests the tile gateway streamed to the web process", m.forwarded.Load())
	counter("tilegate_upstream_errors_total", "Requests the web process could not be reached for (answered 502)", m.upstreamErrors.Load())
	counter("tilegate_tile_cache_hits_total", "Tiles the gateway answered from its cache", m.cacheHits.Load())
	counter("tilegate_tile_cache_misses_total", "Tiles the gateway rendered", m.cacheMisses.Load())
	counter("tilegate_tile_not_modified_total", "Tile revalidations the gateway answered 304", m.notModified.Load())
	counter("tilegate_tile_render_errors_total", "Tile renders that failed in the gateway (then answered by the web process)", m.renderErrors.Load())
	counter("tilegate_session_renewals_total", "Sessions the gateway asked the web process about again while their map was in use", m.renewals.Load())
	entries, bytes := g.tiles.stats()
	fmt.Fprintf(&b, "# HELP tilegate_tile_cache_entries Tiles in the gateway's cache\n# TYPE tilegate_tile_cache_entries gauge\ntilegate_tile_cache_entries %d\n", entries)
	fmt.Fprintf(&b, "# HELP tilegate_tile_cache_bytes Bytes of the tiles in the gateway's cache\n# TYPE tilegate_tile_cache_bytes gauge\ntilegate_tile_cache_bytes %d\n", bytes)
	listening := 0
	if g.sessions.listening.Load() {
		listening = 1
	}
	fmt.Fprintf(&b, "# HELP tilegate_session_listener_up Whether the gateway hears session changes (0: every tile goes to the web process)\n# TYPE tilegate_session_listener_up gauge\ntilegate_session_listener_up %d\n", listening)
	m.mu.Lock()
	name := "tilegate_tile_request_duration_seconds"
	fmt.Fprintf(&b, "# HELP %s Tiles the gateway answered itself, by time to answer\n# TYPE %s histogram\n", name, name)
	var cum int64
	for i, le := range buckets {
		cum += m.counts[i]
		fmt.Fprintf(&b, "%s_bucket{le=\"%g\"} %d\n", name, le, cum)
	}
	cum += m.counts[len(buckets)]
	fmt.Fprintf(&b, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %g\n%s_count %d\n", name, cum, name, m.sum, name, m.total)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}
