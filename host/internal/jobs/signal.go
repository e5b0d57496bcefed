package jobs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/redis/go-redis/v9"
)

// redisSignal carries wake-ups between hosts over Redis pub/sub: one
// channel per queue, the payload the publishing host's id so that a host
// ignores its own wake-ups (it woke its workers directly). Pub/sub is
// lossy by design here: a missed wake-up only delays a job until the next
// poll, because the job row, not the message, is the truth.
type redisSignal struct {
	client *redis.Client
	prefix string
	host   string
	log    hclog.Logger

	mu      sync.Mutex
	pending map[string]bool
	kick    chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup
	pubsub  *redis.PubSub
	lastErr time.Time
}

func newRedisSignal(url, prefix, host string, log hclog.Logger) (*redisSignal, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("jobs: parse redis url: %w", err)
	}
	opt.DialTimeout = 2 * time.Second
	opt.MaxRetries = 1
	r := &redisSignal{
		client:  redis.NewClient(opt),
		prefix:  prefix,
		host:    host,
		log:     log,
		pending: map[string]bool{},
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
	}
	r.wg.Add(1)
	go r.publishLoop()
	return r, nil
}

func (r *redisSignal) channel(queue string) string { return r.prefix + ":wake:" + queue }

// publish asks for a wake-up of queue on other hosts without waiting:
// enqueues during one publish round trip share the next message.
func (r *redisSignal) publish(queue string) {
	r.mu.Lock()
	r.pending[queue] = true
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *redisSignal) publishLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.stop:
			return
		case <-r.kick:
		}
		r.mu.Lock()
		queues := make([]string, 0, len(r.pending))
		for q := range r.pending {
			queues = append(queues, q)
		}
		clear(r.pending)
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		for _, q := range queues {
			r.publishNow(ctx, q)
		}
		cancel()
	}
}

func (r *redisSignal) publishNow(ctx context.Context, queue string) {
	if err := r.client.Publish(ctx, r.channel(queue), r.host).Err(); err != nil {
		r.mu.Lock()
		quiet := time.Since(r.lastErr) < 10*time.Second
		if !quiet {
			r.lastErr = time.Now()
		}
		r.mu.Unlock()
		if !quiet {
			r.log.Warn("redis wake-up not sent; other hosts will find the job by polling", "queue", queue, "error", err)
		}
	}
}

// subscribe delivers wake-ups from other hosts to onWake until close. It
// waits for the subscription to be confirmed, so that a job enqueued
// elsewhere after subscribe returns wakes this host. go-redis reconnects and
// resubscribes by itself after an outage.
func (r *redisSignal) subscribe(ctx context.Context, onWake func(queue string)) error {
	channels := make([]string, len(QueueNames))
	for i, q := range QueueNames {
		channels[i] = r.channel(q)
	}
	ps := r.client.Subscribe(context.Background(), channels...)
	r.pubsub = ps
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, err := ps.Receive(cctx)
	cancel()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for m := range ps.Channel(redis.WithChannelHealthCheckInterval(time.Second)) {
			if m.Payload == r.host {
				continue
			}
			onWake(strings.TrimPrefix(m.Channel, r.prefix+":wake:"))
		}
	}()
	if err != nil {
		return fmt.Errorf("subscribe to redis wake-ups: %w", err)
	}
	return nil
}

func (r *redisSignal) close() {
	close(r.stop)
	if r.pubsub != nil {
		r.pubsub.Close()
	}
	r.wg.Wait()
	r.client.Close()
}
