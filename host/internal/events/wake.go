package events

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisWake carries "events were written" between hosts over Redis
// pub/sub, so that a delivery starts at once on whichever host claims it.
// Lossy by design: a missed message only waits for the next poll, since
// the delivery rows are the truth.
type RedisWake struct {
	client  *redis.Client
	channel string
	host    string
	kick    chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
}

// NewRedisWake connects to the Redis at url; host tells this host's own
// messages apart.
func NewRedisWake(url, prefix, host string) (*RedisWake, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("events: parse redis url: %w", err)
	}
	opt.DialTimeout = 2 * time.Second
	return &RedisWake{client: redis.NewClient(opt), channel: prefix + ":events:wake", host: host, kick: make(chan struct{}, 1)}, nil
}

func (r *RedisWake) publish() {
	if r == nil {
		return
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *RedisWake) start(wake func()) {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	sub := r.client.Subscribe(ctx, r.channel)
	go func() {
		defer close(r.done)
		defer sub.Close()
		msgs := sub.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.kick:
				r.client.Publish(ctx, r.channel, r.host)
			case m, ok := <-msgs:
				if !ok {
					return
				}
				if m.Payload != r.host {
					wake()
				}
			}
		}
	}()
}

func (r *RedisWake) close() {
	if r == nil || r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
	r.client.Close()
}
