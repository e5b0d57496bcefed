package schedule_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
)

// The harness (host/internal/schedule/scheduletest) is shared with the
// destination package's tests; these names keep this package's tests short.
func TestMain(m *testing.M) { scheduletest.Main(m) }

type (
	testBundle = scheduletest.Bundle
	options    = scheduletest.Options
	receiver   = scheduletest.Receiver
	response   = apitest.Response
	delivery   = scheduletest.Delivery
)

const (
	jwtSecret = scheduletest.JWTSecret
	secretKey = scheduletest.SecretKey
)

var (
	setup       = scheduletest.Setup
	plugins     = scheduletest.Plugins
	newReceiver = scheduletest.NewReceiver
	verify      = scheduletest.Verify
	in          = scheduletest.In
	pngBytes    = scheduletest.PNG
	scheduleOf  = scheduletest.Schedule
)
