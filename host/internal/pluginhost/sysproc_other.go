//go:build !linux

package pluginhost

import "syscall"

// sysProcAttr has no parent-death signal here; the plugin SDK's watchdog
// notices the host's death.
func sysProcAttr() *syscall.SysProcAttr { return nil }
