// Command driver measures the openai plugin's CPU per GenerateText call
// through the real subprocess boundary (go-plugin, gRPC, AutoMTLS), the way
// the host calls it. It serves an OpenAI-compatible fake in this process,
// starts each plugin binary it is given (built from ../plugin at the commits
// to compare), and makes rounds of n calls, 16 at once, to each binary in
// turn (rotating which goes first), reading the plugin process's CPU time
// from /proc before and after each round:
//
//	go build -o new ./plugins/openai/internal/cpubench/plugin
//	driver ./old ./new 3000 5
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"

	"github.com/heraldhq/herald/sdk"
)

const answer = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-5-mini-2026-01-01",
"choices":[{"index":0,"message":{"role":"assistant","content":"Acme, Globex and Initech are the best known CRMs for small teams; Acme is the cheapest.","refusal":null},"finish_reason":"stop","logprobs":null}],
"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42}}`

func cpu(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return float64(u+s) / 100
}

func main() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()
	a := os.Args[1:]
	bins := a[:len(a)-2]
	n, _ := strconv.Atoi(a[len(a)-2])
	rounds, _ := strconv.Atoi(a[len(a)-1])
	type proc struct {
		c   *plugin.Client
		p   *sdk.ProviderClient
		pid int
	}
	procs := map[string]proc{}
	for _, bin := range bins {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-bench", "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_MAX_CONCURRENCY=16")
		c := plugin.NewClient(&plugin.ClientConfig{HandshakeConfig: sdk.Handshake, VersionedPlugins: sdk.VersionedPlugins(),
			Cmd: cmd, AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC}, AutoMTLS: true, Logger: hclog.NewNullLogger()})
		rpc, err := c.Client()
		if err != nil {
			panic(err)
		}
		raw, err := rpc.Dispense(sdk.ProviderPluginName)
		if err != nil {
			panic(err)
		}
		procs[bin] = proc{c, raw.(*sdk.ProviderClient), c.ReattachConfig().Pid}
		defer c.Kill()
	}
	run := func(p *sdk.ProviderClient, n int) {
		var wg sync.WaitGroup
		work := make(chan int)
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range work {
					if _, err := p.GenerateText(context.Background(), sdk.TextRequest{Model: "gpt-5-mini", System: "You answer briefly.", Prompt: "What is the best CRM for a small team?"}); err != nil {
						panic(err)
					}
				}
			}()
		}
		for i := range n {
			work <- i
		}
		close(work)
		wg.Wait()
	}
	for _, bin := range bins {
		run(procs[bin].p, 200) // warm up
	}
	for r := range rounds {
		for i := range bins {
			bin := bins[(i+r)%len(bins)]
			pr := procs[bin]
			c0, t0 := cpu(pr.pid), time.Now()
			run(pr.p, n)
			c1 := cpu(pr.pid)
			fmt.Printf("round %d %s: %.1f us plugin CPU/call (%.2f CPU-s, %d calls, %.0f calls/s)\n", r, bin, (c1-c0)/float64(n)*1e6, c1-c0, n, float64(n)/time.Since(t0).Seconds())
		}
	}
}
