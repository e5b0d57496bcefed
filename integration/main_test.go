package integration_test

import (
	"os"
	"testing"

	"github.com/heraldhq/herald/integration/testenv"
)

// TestMain purges the containers testenv started for this run.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
