package schedule_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A webhook export interrupted by a plugin crash is delivered exactly once
// more, with the same webhook-id (README, "crash between sent and
// recorded"), and the post is published. The test is not parallel: it kills
// the webhook plugin of the manager the package's tests share.
func TestAWebhookExportInterruptedByAPluginCrashIsDeliveredOnceMore(t *testing.T) {
	b := setup(t, storetest.SQLite(t))
	var (
		mu  sync.Mutex
		ids []string
	)
	rc := scheduletest.NewReceiverFunc(t, func(w http.ResponseWriter, r *http.Request) {
		// Read the body: only then does the server notice the client's
		// connection closing (and cancel r.Context()).
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		first := len(ids) == 1
		mu.Unlock()
		if first {
			// The request has reached the receiver: the plugin dies now,
			// before it can report the answer.
			pid, err := webhookPluginPID()
			if err == nil {
				err = syscall.Kill(pid, syscall.SIGKILL)
			}
			if err != nil {
				t.Errorf("kill the webhook plugin: %v", err)
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			t.Logf("killed the webhook plugin, pid %d", pid)
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
				t.Errorf("the killed plugin's request is still open after 20s")
			}
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	hook := b.SaveWebhook(t, b.Acme, rc)
	id := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(0))).Want(t, http.StatusOK))["id"].(string)
	b.WaitStatus(t, b.Acme, id, "published", 20*time.Second)
	b.WaitIdle(t, 10*time.Second)
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 2 || ids[0] != id || ids[1] != id {
		t.Fatalf("webhook-ids delivered %q, want the schedule id %s twice: the interrupted send and one repeat", ids, id)
	}
}

// webhookPluginPID finds this process's child serving the webhook plugin
// (`<test binary> plugin webhook`).
func webhookPluginPID() (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00"); len(args) == 3 && args[1] == "plugin" && args[2] == "webhook" {
			return pid, nil
		}
	}
	return 0, errors.New("no webhook plugin process found")
}
