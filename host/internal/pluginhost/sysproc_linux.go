package pluginhost

import "syscall"

// sysProcAttr starts a plugin in its own process group, so that a Ctrl-C
// at the terminal reaches only the host (which finishes in-flight calls and
// then stops its plugins), and asks the kernel to send it SIGTERM if the
// host dies without stopping it (the plugin SDK also watches for that).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
