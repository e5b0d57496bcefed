package testenv

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// ErrNoPeerLookup is returned by PeerPID where the kernel does not say
// which process owns a socket (anywhere but Linux).
var ErrNoPeerLookup = errors.New("telling which process holds a loopback connection needs Linux's /proc")

// PeerPID returns which of pids holds the other end of c, a connection a
// test's server accepted from a process on this machine over loopback:
// the socket whose local port is c's remote port and whose remote port is
// c's local port, found in /proc/net/tcp{,6}, then among the processes'
// open files. A test that runs several herald processes against one
// receiver uses it to know which host sent a request: nothing in the
// request says so.
func PeerPID(c net.Conn, pids ...int) (int, error) {
	if runtime.GOOS != "linux" {
		return 0, ErrNoPeerLookup
	}
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("peer of %s: not a TCP connection", c.RemoteAddr())
	}
	inode, err := socketInode(remote.Port, local.Port)
	if err != nil {
		return 0, err
	}
	want := "socket:[" + inode + "]"
	for _, pid := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue // the process has exited
		}
		for _, fd := range fds {
			if link, err := os.Readlink(dir + "/" + fd.Name()); err == nil && link == want {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("peer of %s: socket %s is held by none of the processes %v", c.RemoteAddr(), inode, pids)
}

// socketInode finds the inode of the TCP socket from localPort to
// remotePort in the kernel's socket tables.
func socketInode(localPort, remotePort int) (string, error) {
	lp, rp := fmt.Sprintf(":%04X", localPort), fmt.Sprintf(":%04X", remotePort)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || !strings.HasSuffix(fields[1], lp) || !strings.HasSuffix(fields[2], rp) {
				continue
			}
			if _, err := strconv.ParseUint(fields[9], 10, 64); err == nil && fields[9] != "0" {
				f.Close()
				return fields[9], nil
			}
		}
		f.Close()
	}
	return "", fmt.Errorf("no socket from port %d to port %d in /proc/net/tcp", localPort, remotePort)
}
