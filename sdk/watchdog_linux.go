package sdk

import "syscall"

// setParentDeathSignal asks the kernel to send SIGTERM to this process
// when its parent dies (prctl PR_SET_PDEATHSIG). A parent that died before
// the call is caught by watchHost's ticker.
func setParentDeathSignal() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
}
