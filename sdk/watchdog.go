package sdk

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

// hostCheckInterval is how often a served plugin checks that its host is
// still there.
const hostCheckInterval = 250 * time.Millisecond

// watchHost makes a served plugin end with its host, since go-plugin's Serve
// does neither of these by itself:
//
//   - SIGTERM or SIGINT exits 0 at once (a host, an init system or an
//     operator asking it to stop), whatever else caught the signal;
//   - when the host dies without stopping it (SIGKILL, a crash), the plugin
//     exits too instead of living on as an orphan: on Linux the kernel
//     sends SIGTERM when the parent dies (PR_SET_PDEATHSIG), and on every
//     system a watchdog notices that the parent process changed (the
//     orphan was re-parented to init or a subreaper).
func watchHost(l hclog.Logger) {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	parent := os.Getppid()
	setParentDeathSignal()
	go func() {
		t := time.NewTicker(hostCheckInterval)
		defer t.Stop()
		for {
			select {
			case sig := <-stop:
				l.Info("stopping", "signal", sig.String())
				os.Exit(0)
			case <-t.C:
				if os.Getppid() != parent {
					l.Warn("the host process is gone; exiting", "host_pid", parent)
					os.Exit(0)
				}
			}
		}
	}()
}
