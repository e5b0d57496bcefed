package destination

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/sdk"
)

// Check is the last check of a stored connection's credentials with the
// remote.
type Check struct {
	// At is when the remote was asked (epoch ms); nil when skipped.
	At *int64
	// Result is one of the Check* results; "" for connections saved before
	// checks existed.
	Result  string
	Message string
	// Account is the remote account the credentials belong to, when the
	// plugin says.
	Account string
}

// Results of a connection check (Check.Result).
const (
	CheckOK          = "ok"
	CheckFailed      = "failed"
	CheckSkipped     = "skipped"
	CheckUnsupported = "unsupported"
)

// checkConnection verifies credentials for destination name with one cheap
// authenticated call to its remote, through the plugin's CheckConnection.
// Refused credentials are a 400 quoting the plugin's message (which names
// the fields to check and the remote's reason); an unreachable or failing
// remote is a 503 with the reason. A plugin that cannot check saves the
// connection as "unsupported".
func (s *Service) checkConnection(ctx context.Context, name string, creds map[string]string) (Check, error) {
	res, err := s.dests.CheckConnection(ctx, name, sdk.CheckConnectionRequest{Credentials: creds})
	if err == nil {
		now := s.store.Now()
		return Check{At: &now, Result: CheckOK, Account: res.Account}, nil
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		return Check{}, err
	}
	switch se.Code {
	case sdk.CodeUnimplemented:
		return Check{Result: CheckUnsupported}, nil
	case sdk.CodeUnauthenticated, sdk.CodePermissionDenied, sdk.CodeInvalidArgument, sdk.CodeNotFound, sdk.CodeRemote:
		return Check{}, apierr.Invalid("%s did not accept these credentials: %s", name, se.Message)
	default:
		return Check{}, apierr.Unavailable("could not check the credentials with %s: %s (try again, or save without checking with ?verify=false)", name, se.Message)
	}
}
