// Command serve serves the first-party plugin named by its argument, as
// `herald plugin NAME` does; the plugins tests build it to run plugins as
// real go-plugin subprocesses.
package main

import (
	"fmt"
	"os"

	"github.com/heraldhq/herald/plugins"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: serve NAME")
		os.Exit(2)
	}
	if err := plugins.Serve(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
