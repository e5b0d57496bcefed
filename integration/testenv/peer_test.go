package testenv

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// A connection this process dials is found to be this process's, and not
// another's: the lookup tells two senders apart.
func TestPeerPIDNamesTheProcessThatDialled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	defer server.Close()

	// Another process, to be told apart from this one.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Skipf("no second process: %v", err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()

	pid, err := PeerPID(server, other.Process.Pid, os.Getpid())
	if errors.Is(err, ErrNoPeerLookup) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if pid != os.Getpid() {
		t.Fatalf("peer pid %d, want this process %d", pid, os.Getpid())
	}
	if _, err := PeerPID(server, other.Process.Pid); err == nil {
		t.Fatalf("the connection was attributed to process %s, which never dialled", strconv.Itoa(other.Process.Pid))
	}
}
