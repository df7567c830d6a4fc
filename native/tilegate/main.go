// Command tilegate is the web app's front door with a tile path of its own (issue 45,
// docs/tiles.md "The tile gateway"). It listens on the app's public port and answers the map's
// tile requests (`GET /tiles/<source>/<z>/<x>/<y>` with a session cookie) itself: the tile
// statements the web process would run, from a plan the stack writes (scripts/stack/tilegate.ts),
// the same versions, ETags, cache and headers. Everything else, and every tile request it has any
// doubt about, it streams to the web process unchanged: the web process stays the one place
// where sessions, access rules and errors are decided.
//
// It never reads a session itself. A Cookie header is served here only within the plan's session
// window after the web process served a tile to it (renewed through the web process while the map
// is in use), and only while this process hears the primary's `app_sessions_changed`
// notifications (a sign-out, a failed refresh, an expiry changed drop the cookie at once).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Plan is what the stack hands over: the tile sources' statements (domain/tiles/mvt.ts
// statementFor, one a source and zoom) and the settings the web process reads from its config.
type Plan struct {
	SessionCookie   string            `json:"sessionCookie"`
	SessionWindowMs int               `json:"sessionWindowMs"`
	VersionTTLMs    int               `json:"versionTtlMs"`
	MaxAgeSeconds   int               `json:"maxAgeSeconds"`
	CacheMaxEntries int               `json:"cacheMaxEntries"`
	CacheMaxBytes   int64             `json:"cacheMaxBytes"`
	PoolMax         int32             `json:"poolMax"`
	MaxZoom         int               `json:"maxZoom"`
	ReplicaRetryMs  int               `json:"replicaRetryMs"`
	StatementTimeMs int               `json:"statementTimeoutMs"`
	ConnectTimeMs   int               `json:"connectTimeoutMs"`
	RuntimeParams   map[string]string `json:"runtimeParams"`
	// A tile outside its source's zoom range: what the web process answers without rendering.
	ProbePath string       `json:"probePath"`
	Sources   []PlanSource `json:"sources"`
}

// PlanSource is one tile source: its zoom range and its statement at each zoom of it.
type PlanSource struct {
	Name       string            `json:"name"`
	Minzoom    int               `json:"minzoom"`
	Maxzoom    int               `json:"maxzoom"`
	Statements map[string]string `json:"statements"`
}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := run(log); err != nil {
		log.Error("tilegate stopped", "err", err.Error())
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {
	raw, err := os.ReadFile(env("TILEGATE_PLAN", ""))
	if err != nil {
		return err
	}
	var plan Plan
	if err := json.Unmarshal(raw, &plan); err != nil {
		return err
	}
	upstream, err := url.Parse(env("TILEGATE_UPSTREAM", ""))
	if err != nil || upstream.Host == "" {
		return errors.New("TILEGATE_UPSTREAM: the web process's address, http://host:port")
	}
	listen := env("TILEGATE_LISTEN", "")
	if listen == "" {
		return errors.New("TILEGATE_LISTEN: the public address, host:port")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	primaryURL := env("TILEGATE_DATABASE_URL", "")
	readURL := env("TILEGATE_DATABASE_READ_URL", primaryURL)
	servers, err := openServers(ctx, &plan, primaryURL, readURL)
	if err != nil {
		return err
	}
	defer servers.close()
	sessions := newSessions(plan.SessionCookie, time.Duration(plan.SessionWindowMs)*time.Millisecond)
	go sessions.follow(ctx, primaryURL, log)

	g := &gate{
		plan:     &plan,
		sources:  indexSources(&plan),
		tiles:    newTileCache(plan.CacheMaxEntries, plan.CacheMaxBytes),
		servers:  servers,
		sessions: sessions,
		metrics:  &gateMetrics{},
		log:      log,
	}
	g.proxy = newProxy(upstream, g)
	g.upstream = upstream

	if m := env("TILEGATE_METRICS_LISTEN", ""); m != "" {
		ms := &http.Server{Addr: m, Handler: http.HandlerFunc(g.serveMetrics), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := ms.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("metrics listener failed", "err", err.Error())
			}
		}()
		defer ms.Close()
	}

	srv := &http.Server{
		Addr:    listen,
		Handler: g,
		// The web process's own limits (domain/net/keepAlive.ts): idle keep-alive sockets live
		// longer than any client's, so no request is sent on a socket being closed.
		ReadHeaderTimeout: 66 * time.Second,
		IdleTimeout:       65 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	log.Info("tilegate listening", "listen", listen, "upstream", upstream.Host, "sources", len(plan.Sources))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	}
}

// newProxy streams every request it is given to the web process, as a reverse proxy on this
// host: the Host header kept (the same-origin checks compare it), X-Forwarded-For extended with
// the client (the web process trusts a loopback proxy's, TRUST_PROXY), bodies and answers
// streamed as they come (uploads, exports, progress), and a client that leaves closes the
// request upstream, which the web process hears as its client leaving.
func newProxy(upstream *url.URL, g *gate) *httputil.ReverseProxy {
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       60 * time.Second, // under the web process's 65 s keep-alive
		DisableCompression:    true,
		ExpectContinueTimeout: time.Second,
	}
	return &httputil.ReverseProxy{
		Transport:     transport,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			pr.Out.Host = pr.In.Host
			// As a Director-style proxy does: the forwarding headers that came in are kept, and
			// the client is appended to X-Forwarded-For.
			for _, h := range []string{"Forwarded", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
			if ip, _, err := net.SplitHostPort(pr.In.RemoteAddr); err == nil {
				if prior := pr.In.Header.Values("X-Forwarded-For"); len(prior) > 0 {
					ip = strings.Join(prior, ", ") + ", " + ip
				}
				pr.Out.Header.Set("X-Forwarded-For", ip)
			}
		},
		ModifyResponse: func(res *http.Response) error {
			g.learn(res)
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client left: nobody to answer
			}
			g.metrics.upstreamErrors.Add(1)
			// One line every ten seconds at most: a web process restarting fails every request.
			if now := time.Now().UnixMilli(); now-g.lastUpstreamLog.Load() >= 10_000 {
				g.lastUpstreamLog.Store(now)
				g.log.Warn("web process unreachable", "err", err.Error(), "path", r.URL.Path)
			}
			writeError(w, http.StatusBadGateway, "upstream_error", "Serviciul web nu răspunde. Încercați din nou peste câteva secunde.")
		},
	}
}

// writeError answers with the contract's error body (CONTRACT.md: error, message).
func writeError(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(map[string]string{"error": code, "message": message})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
