package main

import (
	"bytes"
	"container/list"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/klauspost/compress/gzip"
)

// server is one PostgreSQL server the tiles are read from, with its copy of tile_versions.
type server struct {
	pool     *pgxpool.Pool
	ttl      time.Duration
	mu       sync.Mutex
	versions map[string]string
	readAt   time.Time
	reading  chan struct{}
	// Epoch ms of the last tile request that asked for a version.
	lastAsked atomic.Int64
}

// servers: the readers' server (DATABASE_READ_URL, a replica) and the primary, as the web
// process's readOn (domain/db/readers.ts): a replica that fails as a server is left for
// REPLICA_RETRY_MS, and a tile's version and the tile itself come from the same server.
type servers struct {
	primary   *server
	replica   *server
	retry     time.Duration
	awayUntil atomic.Int64
}

func openServer(ctx context.Context, p *Plan, url string) (*server, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, errors.New("tile database URL unreadable")
	}
	cfg.MaxConns = p.PoolMax
	cfg.ConnConfig.ConnectTimeout = time.Duration(p.ConnectTimeMs) * time.Millisecond
	for k, v := range p.RuntimeParams {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.Itoa(p.StatementTimeMs)
	cfg.ConnConfig.RuntimeParams["application_name"] = "tilegate"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	sv := &server{pool: pool, ttl: time.Duration(p.VersionTTLMs) * time.Millisecond}
	go sv.keepFresh(ctx)
	return sv, nil
}

func openServers(ctx context.Context, p *Plan, primaryURL, readURL string) (*servers, error) {
	primary, err := openServer(ctx, p, primaryURL)
	if err != nil {
		return nil, err
	}
	s := &servers{primary: primary, retry: time.Duration(p.ReplicaRetryMs) * time.Millisecond}
	if readURL != primaryURL {
		if s.replica, err = openServer(ctx, p, readURL); err != nil {
			primary.pool.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *servers) close() {
	s.primary.pool.Close()
	if s.replica != nil {
		s.replica.pool.Close()
	}
}

// serverAway: a failure saying the server is not there, not that the read was wrong (readers.ts replicaAway).
func serverAway(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P") || pgErr.Code == "40001"
	}
	var netErr net.Error
	return errors.As(err, &netErr) || pgconn.SafeToRetry(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// versionOf: the server to read the tile from and the source's version key there ("version:bumpedAt").
func (s *servers) versionOf(ctx context.Context, source string) (*server, string, error) {
	if s.replica != nil && time.Now().UnixMilli() >= s.awayUntil.Load() {
		v, err := s.replica.version(ctx, source)
		if err == nil {
			return s.replica, v, nil
		}
		if !serverAway(err) || ctx.Err() != nil {
			return nil, "", err
		}
		s.awayUntil.Store(time.Now().Add(s.retry).UnixMilli())
	}
	v, err := s.primary.version(ctx, source)
	return s.primary, v, err
}

// version: the source's version from this process's copy of tile_versions, trusted for
// TILE_VERSION_TTL_MS. While tiles are asked for, keepFresh re-reads it every half of that, so a
// request reads it inline only when it is the first after a quiet minute, as in the web process.
func (sv *server) version(ctx context.Context, source string) (string, error) {
	sv.lastAsked.Store(time.Now().UnixMilli())
	sv.mu.Lock()
	if sv.versions != nil && time.Since(sv.readAt) < sv.ttl {
		v := sv.versions[source]
		sv.mu.Unlock()
		return orNever(v), nil
	}
	wait := sv.reading
	if wait == nil {
		sv.reading = make(chan struct{})
	}
	sv.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		sv.mu.Lock()
		defer sv.mu.Unlock()
		if sv.versions == nil || time.Since(sv.readAt) >= sv.ttl {
			return "", errors.New("tile versions unavailable")
		}
		return orNever(sv.versions[source]), nil
	}
	if err := sv.refresh(ctx); err != nil {
		return "", err
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return orNever(sv.versions[source]), nil
}

// keepFresh re-reads tile_versions every half TTL while a tile was asked for in the last minute.
func (sv *server) keepFresh(ctx context.Context) {
	t := time.NewTicker(sv.ttl / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Now().UnixMilli()-sv.lastAsked.Load() > keepFreshAfterMs {
			continue
		}
		sv.mu.Lock()
		if sv.reading != nil {
			sv.mu.Unlock()
			continue
		}
		sv.reading = make(chan struct{})
		sv.mu.Unlock()
		_ = sv.refresh(ctx)
	}
}

// keepFreshAfterMs: how long after the last tile request the versions are still kept fresh.
const keepFreshAfterMs = 60_000

func orNever(v string) string {
	if v == "" {
		return "0:0"
	}
	return v
}

// refresh reads tile_versions; the caller has set sv.reading, which it closes.
func (sv *server) refresh(ctx context.Context) error {
	started := time.Now()
	next := map[string]string{}
	rows, err := sv.pool.Query(ctx, `SELECT source, version::text, ((extract(epoch FROM bumped_at) * 1000)::bigint)::text FROM tile_versions`)
	if err == nil {
		for rows.Next() {
			var source, version, bumped string
			if err = rows.Scan(&source, &version, &bumped); err != nil {
				break
			}
			next[source] = version + ":" + bumped
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if err == nil {
		sv.versions = next
		sv.readAt = started
	}
	close(sv.reading)
	sv.reading = nil
	return err
}

// render runs the source's statement at the zoom (the web process's renderTile): nil when the zoom
// is outside the source's range or nothing lies in the tile.
func (sv *server) render(ctx context.Context, a *tileAddr) ([]byte, error) {
	if a.z < a.source.Minzoom || a.z > a.source.Maxzoom {
		return nil, nil
	}
	sql, ok := a.source.Statements[strconv.Itoa(a.z)]
	if !ok {
		return nil, errors.New("no statement for this zoom in the plan")
	}
	var mvt []byte
	if err := sv.pool.QueryRow(ctx, sql, a.z, a.x, a.y, a.source.Name).Scan(&mvt); err != nil {
		return nil, err
	}
	return mvt, nil
}

// ---- compression (domain/tiles/mvt.ts compressBase64) -------------------------------------------

// storedBelow: an MVT under this goes in a gzip member that stores it (zlib's per-call cost for
// a few hundred bytes saved), as the web process does; above, deflate's fastest level.
const storedBelow = 2048

var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}

// klauspost/compress: the standard library's fastest level built a dynamic Huffman table for each
// tile, a fifth of the gateway's CPU per tile (perf, docs/bench/tiles.md 2026-11-30).
var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return w
}}

func compress(mvt []byte) []byte {
	if len(mvt) == 0 {
		return []byte{}
	}
	if len(mvt) < storedBelow {
		n := len(mvt)
		out := make([]byte, 0, len(gzipHeader)+5+n+8)
		out = append(out, gzipHeader...)
		out = append(out, 0x01, byte(n), byte(n>>8), byte(^n), byte(^n>>8))
		out = append(out, mvt...)
		out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(mvt))
		return binary.LittleEndian.AppendUint32(out, uint32(n))
	}
	var buf bytes.Buffer
	buf.Grow(len(mvt)/2 + 64)
	w := gzipWriters.Get().(*gzip.Writer)
	w.Reset(&buf)
	_, _ = w.Write(mvt)
	_ = w.Close()
	gzipWriters.Put(w)
	return bytes.Clone(buf.Bytes())
}

func gunzip(gz []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// ---- the tile cache (domain/tiles/lru.ts: bounded by entries and bytes) ------------------------

type tileCache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int64
	bytes      int64
	order      *list.List
	entries    map[string]*list.Element
}

type cached struct {
	key string
	gz  []byte
}

func newTileCache(maxEntries int, maxBytes int64) *tileCache {
	return &tileCache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), entries: map[string]*list.Element{}}
}

func (c *tileCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cached).gz, true
	}
	return nil, false
}

func (c *tileCache) set(key string, gz []byte) {
	if c.maxEntries <= 0 || int64(len(gz)) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.bytes -= int64(len(e.Value.(*cached).gz))
		c.order.Remove(e)
	}
	c.entries[key] = c.order.PushFront(&cached{key: key, gz: gz})
	c.bytes += int64(len(gz))
	for len(c.entries) > c.maxEntries || c.bytes > c.maxBytes {
		last := c.order.Back()
		v := last.Value.(*cached)
		c.order.Remove(last)
		delete(c.entries, v.key)
		c.bytes -= int64(len(v.gz))
	}
}

func (c *tileCache) stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}
