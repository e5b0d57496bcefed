package soak

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times (100 on
// every Linux architecture Go supports).
const clockTicks = 100

// procTree is a host process and its descendants (the plugin
// subprocesses).
func procTree(root int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			children[st.ppid] = append(children[st.ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

type stat struct {
	ppid       int
	cpuTicks   int64
	rssPages   int64
	threadsNum int
}

func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, false
	}
	// The command name is in parentheses and may hold spaces.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 22 {
		return stat{}, false
	}
	num := func(i int) int64 { n, _ := strconv.ParseInt(f[i], 10, 64); return n }
	// Fields after the name: state(0) ppid(1) ... utime(11) stime(12) ...
	// num_threads(17) ... rss(21).
	return stat{ppid: int(num(1)), cpuTicks: num(11) + num(12), threadsNum: int(num(17)), rssPages: num(21)}, true
}

// usage is one host's process tree now: CPU seconds so far, resident
// memory, and its established TCP connections to PostgreSQL and Redis.
type usage struct {
	cpu          time.Duration
	rss          int64
	procs        int
	pgConns, rdb int
	pgLocal      []int // local ports of the PostgreSQL connections
}

func hostUsage(root int, pgPort, redisPort int) usage {
	var u usage
	page := int64(os.Getpagesize())
	for _, pid := range procTree(root) {
		st, ok := readStat(pid)
		if !ok {
			continue
		}
		u.procs++
		u.cpu += time.Duration(st.cpuTicks) * time.Second / clockTicks
		u.rss += st.rssPages * page
		pg, rd := sockets(pid, pgPort, redisPort)
		u.pgConns += len(pg)
		u.pgLocal = append(u.pgLocal, pg...)
		u.rdb += rd
	}
	return u
}

// sockets finds the process's established TCP connections whose remote
// port is pgPort (their local ports) or redisPort (counted), matching its
// socket descriptors against /proc/PID/net/tcp{,6}.
func sockets(pid, pgPort, redisPort int) (pg []int, rd int) {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	for _, file := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, file))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "01" || !inodes[f[9]] {
				continue
			}
			port, _ := strconv.ParseInt(f[2][strings.LastIndexByte(f[2], ':')+1:], 16, 32)
			local, _ := strconv.ParseInt(f[1][strings.LastIndexByte(f[1], ':')+1:], 16, 32)
			switch int(port) {
			case pgPort:
				pg = append(pg, int(local))
			case redisPort:
				rd++
			}
		}
	}
	return pg, rd
}

// backends measures the CPU of the PostgreSQL backends serving the hosts'
// connections (found by their client ports), against the previous call.
type backends struct {
	last map[int]int64 // backend pid -> CPU ticks
}

func (b *backends) cpu(ctx context.Context, conn *pgx.Conn, ports []int) time.Duration {
	rows, err := conn.Query(ctx, `SELECT pid, client_port FROM pg_stat_activity WHERE client_port = ANY($1)`, ports)
	if err != nil {
		return 0
	}
	var pids []int
	for rows.Next() {
		var pid, port int
		if rows.Scan(&pid, &port) == nil {
			pids = append(pids, pid)
		}
	}
	rows.Close()
	now := map[int]int64{}
	var delta int64
	for _, pid := range pids {
		st, ok := readStat(pid)
		if !ok {
			continue
		}
		now[pid] = st.cpuTicks
		if prev, seen := b.last[pid]; seen {
			delta += st.cpuTicks - prev
		} else if b.last != nil {
			delta += st.cpuTicks // opened during the interval
		}
	}
	b.last = now
	return time.Duration(delta) * time.Second / clockTicks
}

// dbSize is the bytes of the run's schema (tables, indexes and TOAST).
func dbSize(ctx context.Context, conn *pgx.Conn) int64 {
	var n int64
	conn.QueryRow(ctx, `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c
		JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = current_schema() AND c.relkind = 'r'`).Scan(&n)
	return n
}

// tableSizes lists the schema's tables by size with their row counts and
// the dead tuples PostgreSQL's statistics count in each (not yet vacuumed).
func tableSizes(ctx context.Context, conn *pgx.Conn) ([]tableSize, error) {
	rows, err := conn.Query(ctx, `SELECT c.relname, pg_total_relation_size(c.oid), pg_relation_size(c.oid) FROM pg_class c
		JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = current_schema() AND c.relkind = 'r'
		ORDER BY 2 DESC LIMIT 20`)
	if err != nil {
		return nil, err
	}
	var out []tableSize
	for rows.Next() {
		var t tableSize
		if err := rows.Scan(&t.name, &t.total, &t.heap); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	rows.Close()
	for i := range out {
		conn.QueryRow(ctx, `SELECT COUNT(*) FROM `+pgx.Identifier{out[i].name}.Sanitize()).Scan(&out[i].rows)
		conn.QueryRow(ctx, `SELECT COALESCE(n_dead_tup, 0) FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = $1`,
			out[i].name).Scan(&out[i].dead)
	}
	return out, rows.Err()
}

type tableSize struct {
	name              string
	total, heap, rows int64
	dead              int64 // n_dead_tup
}

func mb(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }

// sideCPU is the CPU time so far of what shares the machine with the
// hosts: the Redis servers (every redis-server process: on a machine
// others use too, an upper bound for the hosts' Redis) and this test
// process (the load generator, the engine fake and the site).
func sideCPU() (redis, self time.Duration) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil || strings.TrimSpace(string(comm)) != "redis-server" {
			continue
		}
		if st, ok := readStat(pid); ok {
			redis += ticks(st.cpuTicks)
		}
	}
	if st, ok := readStat(os.Getpid()); ok {
		self = ticks(st.cpuTicks)
	}
	return redis, self
}

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / clockTicks }
