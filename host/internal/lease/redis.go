package lease

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisBackend keeps each slot as the key herald:lease:{name}:{slot}
// holding its holder, with a PX expiry: Redis's own clock expires the
// slots of a host that died.
type redisBackend struct{ c *redis.Client }

func newRedisBackend(url string) (*redisBackend, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("lease: parse redis url: %w", err)
	}
	opt.DialTimeout, opt.MaxRetries = 2*time.Second, 1
	return &redisBackend{c: redis.NewClient(opt)}, nil
}

func keyPrefix(name string) string { return "herald:lease:" + name + ":" }

// takeScript sets the first free slot key from a start index, in one
// atomic step: KEYS[1] the prefix; ARGV slots, holder, ttl ms, start.
var takeScript = redis.NewScript(`
local n = tonumber(ARGV[1])
local start = tonumber(ARGV[4])
for i = 0, n - 1 do
  local s = (start + i) % n
  if redis.call('SET', KEYS[1] .. s, ARGV[2], 'NX', 'PX', ARGV[3]) then
    return s
  end
end
return -1`)

// renewScript extends the key only while it holds ARGV[1].
var renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// releaseScript deletes the key only while it holds ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

func (b *redisBackend) take(ctx context.Context, name string, slots int, holder string, ttl time.Duration) (int, bool, error) {
	n, err := takeScript.Run(ctx, b.c, []string{keyPrefix(name)}, slots, holder, ttl.Milliseconds(), mrand.IntN(slots)).Int()
	if err != nil {
		return 0, false, fmt.Errorf("take slot of %s: %w", name, err)
	}
	return n, n >= 0, nil
}

func (b *redisBackend) renew(ctx context.Context, name string, slot int, holder string, ttl time.Duration) (bool, error) {
	n, err := renewScript.Run(ctx, b.c, []string{fmt.Sprint(keyPrefix(name), slot)}, holder, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("renew slot %d of %s: %w", slot, name, err)
	}
	return n == 1, nil
}

func (b *redisBackend) release(ctx context.Context, name string, slot int, holder string) error {
	if err := releaseScript.Run(ctx, b.c, []string{fmt.Sprint(keyPrefix(name), slot)}, holder).Err(); err != nil {
		return fmt.Errorf("release slot %d of %s: %w", slot, name, err)
	}
	return nil
}

func (b *redisBackend) close() error { return b.c.Close() }
func (b *redisBackend) kind() string { return "redis" }
