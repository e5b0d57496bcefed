package destination

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Results of a connection check (store.ConnectionCheck.Result).
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
func (s *Service) checkConnection(ctx context.Context, name string, creds map[string]string) (store.ConnectionCheck, error) {
	res, err := s.dests.CheckConnection(ctx, name, sdk.CheckConnectionRequest{Credentials: creds})
	if err == nil {
		now := s.store.Now()
		return store.ConnectionCheck{At: &now, Result: CheckOK, Account: res.Account}, nil
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		return store.ConnectionCheck{}, err
	}
	switch se.Code {
	case sdk.CodeUnimplemented:
		return store.ConnectionCheck{Result: CheckUnsupported}, nil
	case sdk.CodeUnauthenticated, sdk.CodePermissionDenied, sdk.CodeInvalidArgument, sdk.CodeNotFound, sdk.CodeRemote:
		return store.ConnectionCheck{}, apierr.Invalid("%s did not accept these credentials: %s", name, se.Message)
	default:
		return store.ConnectionCheck{}, apierr.Unavailable("could not check the credentials with %s: %s (try again, or save without checking with ?verify=false)", name, se.Message)
	}
}
