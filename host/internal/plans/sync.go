package plans

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/plansstore"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/redis/go-redis/v9"
)

// DefaultPollInterval is how often a host looks for a newer stored version
// when no Redis message told it sooner.
const DefaultPollInterval = time.Second

// redisChannel carries "a new version was stored" between hosts; the
// database row, not the message, is the truth, so a lost message only
// delays a host until its next poll.
const redisChannel = "herald:plans"

// Versions is what Sync needs from the store.
type Versions interface {
	LatestPlanVersionNumber(ctx context.Context) (int64, error)
	LatestPlanVersion(ctx context.Context) (plansstore.PlanVersion, error)
	AddPlanVersion(ctx context.Context, body, digest, source string, onlyIfNone bool) (plansstore.PlanVersion, bool, error)
}

// SyncDeps are the dependencies of a Sync.
type SyncDeps struct {
	// Store holds the versions (required).
	Store Versions
	// Table is the live table the host's services read; nil for a Sync
	// that only publishes (`herald plans apply`).
	Table *Table
	// RedisURL, when set, wakes every host as soon as a version is stored.
	RedisURL string
	// OnApply runs after Table took a new version (the job queue's caps).
	OnApply func(Snapshot)
	// Interval is the poll interval (default DefaultPollInterval).
	Interval time.Duration
	Logger   hclog.Logger
}

// Sync keeps a host's Table on the newest stored version: it polls the
// version number (one indexed MAX per interval) and listens on Redis, and
// logs "plans applied" with the version each time it applies one.
type Sync struct {
	d     SyncDeps
	log   hclog.Logger
	redis *redis.Client

	mu   sync.Mutex // one apply at a time
	stop chan struct{}
	wake chan struct{}
	wg   sync.WaitGroup
}

// NewSync checks d and connects to Redis lazily (go-redis dials on use).
func NewSync(d SyncDeps) (*Sync, error) {
	if d.Store == nil {
		return nil, errors.New("plans: Store is required")
	}
	s := &Sync{d: d, log: d.Logger, stop: make(chan struct{}), wake: make(chan struct{}, 1)}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	s.log = s.log.Named("plans")
	if s.d.Interval <= 0 {
		s.d.Interval = DefaultPollInterval
	}
	if d.RedisURL != "" {
		opt, err := redis.ParseURL(d.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("plans: parse redis url: %w", err)
		}
		opt.DialTimeout, opt.MaxRetries = 2*time.Second, 1
		s.redis = redis.NewClient(opt)
	}
	return s, nil
}

// Publish stores snap as the next version (unless the newest stored one is
// equal; onlyIfNone: unless any is stored), tells the other hosts over
// Redis, and applies the newest version to this host's table. It returns
// the version in force and whether snap made a new one.
func (s *Sync) Publish(ctx context.Context, snap Snapshot, onlyIfNone bool) (int64, bool, error) {
	body, digest := Encode(snap)
	v, created, err := s.d.Store.AddPlanVersion(ctx, body, digest, snap.Source, onlyIfNone)
	if err != nil {
		return 0, false, err
	}
	if created && s.redis != nil {
		if err := s.redis.Publish(ctx, redisChannel, v.Version).Err(); err != nil {
			s.log.Warn("redis notice of a new plans version not sent; other hosts find it by polling", "version", v.Version, "error", err)
		}
	}
	if s.d.Table != nil {
		if err := s.Check(ctx); err != nil {
			return v.Version, created, err
		}
	}
	return v.Version, created, nil
}

// Digest is the digest of snap as it would be stored.
func Digest(snap Snapshot) string {
	_, d := Encode(snap)
	return d
}

// Check applies the newest stored version when it is newer than the
// table's. A host never goes back to an older version.
func (s *Sync) Check(ctx context.Context) error {
	if s.d.Table == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.d.Store.LatestPlanVersionNumber(ctx)
	if err != nil || n <= s.d.Table.Version() {
		return err
	}
	pv, err := s.d.Store.LatestPlanVersion(ctx)
	if err != nil {
		return err
	}
	snap, err := Decode(pv.Version, pv.Body, pv.Source)
	if err != nil {
		return err
	}
	prev := s.d.Table.Version()
	s.d.Table.Apply(snap)
	if s.d.OnApply != nil {
		s.d.OnApply(snap)
	}
	s.log.Info("plans applied", "version", pv.Version, "previous", prev, "source", pv.Source, "digest", pv.Digest[:12])
	return nil
}

// Start watches for new versions until Stop: a poll every interval, and
// an immediate look on each Redis notice.
func (s *Sync) Start(ctx context.Context) error {
	if s.redis != nil {
		ps := s.redis.Subscribe(context.Background(), redisChannel)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			<-s.stop
			ps.Close()
		}()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for range ps.Channel(redis.WithChannelHealthCheckInterval(time.Second)) {
				select {
				case s.wake <- struct{}{}:
				default:
				}
			}
		}()
	}
	s.wg.Add(1)
	go s.loop()
	return nil
}

func (s *Sync) loop() {
	defer s.wg.Done()
	t := time.NewTicker(s.d.Interval)
	defer t.Stop()
	var lastErr time.Time
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		case <-s.wake:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.Check(ctx); err != nil && time.Since(lastErr) > 30*time.Second {
			lastErr = time.Now()
			s.log.Warn("cannot read the stored plans; keeping version", "version", s.d.Table.Version(), "error", err)
		}
		cancel()
	}
}

// Stop ends the watch and closes the Redis client.
func (s *Sync) Stop(context.Context) error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.wg.Wait()
	if s.redis != nil {
		return s.redis.Close()
	}
	return nil
}
