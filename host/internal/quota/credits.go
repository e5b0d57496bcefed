package quota

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// AI credits: every call that spends them (a chat turn, an image, an
// improvement, a brand voice profile, a visibility report) reserves them
// here before the provider runs and gives them back when the work fails.
// Credits are counted per workspace and UTC month against the plan's
// MonthlyAICredits, read from the plans table at each call.

// WithClock returns a copy of c that reads the month from now (tests);
// nil now: time.Now.
func (c *Checker) WithClock(now func() time.Time) *Checker {
	n := *c
	n.now = now
	return &n
}

// WithLogger returns a copy of c that logs failed refunds to l.
func (c *Checker) WithLogger(l hclog.Logger) *Checker {
	n := *c
	n.log = l
	return &n
}

// Month is the current credit month, "2006-01" in UTC.
func (c *Checker) Month() string {
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	return now().UTC().Format("2006-01")
}

// Plan returns the caller's plan name and rules. A principal without a
// plan (a background job acting for a workspace) reads the workspace's
// plan now.
func (c *Checker) Plan(ctx context.Context, p auth.Principal) (string, config.Plan, error) {
	name := p.Plan
	if name == "" {
		var err error
		if name, err = voicestore.New(c.store).WorkspacePlan(ctx, p.WorkspaceID); err != nil {
			return "", config.Plan{}, fmt.Errorf("workspace plan: %w", err)
		}
	}
	plan, _ := c.table.Get(name)
	return name, plan, nil
}

// errCreditLimit is the cause of every CreditLimitReached error.
var errCreditLimit = errors.New("monthly AI credit limit reached")

// CreditLimitReached is the API's 403 for a workspace whose month's
// credits cannot pay for n more.
func CreditLimitReached(plan string, limit, n int) error {
	return connect.NewError(connect.CodePermissionDenied,
		fmt.Errorf("%w: the %s plan allows %d credits a month, and this needs %d", errCreditLimit, plan, limit, n))
}

// IsCreditLimit reports whether err is (or wraps) CreditLimitReached: the
// month's credits were refused, as opposed to any other failure.
func IsCreditLimit(err error) bool { return errors.Is(err, errCreditLimit) }

// Reserve takes n AI credits of the caller's workspace for this month,
// atomically, or answers CreditLimitReached and takes nothing. refund
// gives them back (safe to call more than once; only the first counts;
// it runs even after ctx is cancelled).
func (c *Checker) Reserve(ctx context.Context, p auth.Principal, n int) (refund func(), err error) {
	_, refund, err = c.ReserveMonth(ctx, p, n)
	return refund, err
}

// ReserveMonth is Reserve that also says which month the credits were
// taken from, for work that refunds later, elsewhere (a queued job keeps
// the month and calls Refund).
func (c *Checker) ReserveMonth(ctx context.Context, p auth.Principal, n int) (month string, refund func(), err error) {
	name, plan, err := c.Plan(ctx, p)
	if err != nil {
		return "", nil, err
	}
	month = c.Month()
	_, ok, err := creditstore.New(c.store).ReserveCredits(ctx, p.WorkspaceID, month, n, plan.MonthlyAICredits)
	if err != nil {
		return "", nil, err
	}
	if !ok {
		return "", nil, CreditLimitReached(name, plan.MonthlyAICredits, n)
	}
	done := false
	return month, func() {
		if done {
			return
		}
		done = true
		c.Refund(context.WithoutCancel(ctx), p.WorkspaceID, month, n)
	}, nil
}

// ReserveTx is Reserve inside q's transaction, for a reservation that
// commits with the write it pays for (a queued report). ok is false when
// the credits do not suffice; used is then the month's usage, for the
// caller's message. The caller keeps month to refund later.
func (c *Checker) ReserveTx(ctx context.Context, q store.Querier, workspaceID, month string, plan config.Plan, n int) (used int, ok bool, err error) {
	if _, ok, err = creditstore.New(c.store).ReserveCreditsTx(ctx, q, workspaceID, month, n, plan.MonthlyAICredits); err != nil || ok {
		return 0, ok, err
	}
	used, err = creditstore.New(c.store).CreditsUsedTx(ctx, q, workspaceID, month)
	return used, false, err
}

// Refund gives back n credits reserved in month for work that did not
// succeed; a failure is logged, not returned (the work's own error is the
// one the caller reports).
func (c *Checker) Refund(ctx context.Context, workspaceID, month string, n int) {
	if n <= 0 {
		return
	}
	if err := creditstore.New(c.store).RefundCredits(ctx, workspaceID, month, n); err != nil && c.log != nil {
		c.log.Error("refund AI credits", "workspace", workspaceID, "month", month, "credits", n, "error", err)
	}
}

// CheckCredits answers CreditLimitReached, without reserving, when the
// month's credits cannot pay for n more: an early refusal before work is
// queued whose job reserves the credits itself.
func (c *Checker) CheckCredits(ctx context.Context, p auth.Principal, n int) error {
	name, plan, err := c.Plan(ctx, p)
	if err != nil {
		return err
	}
	used, err := creditstore.New(c.store).CreditsUsed(ctx, p.WorkspaceID, c.Month())
	if err != nil {
		return err
	}
	if used+n > plan.MonthlyAICredits {
		return CreditLimitReached(name, plan.MonthlyAICredits, n)
	}
	return nil
}

// Used returns the AI credits the workspace has used this month.
func (c *Checker) Used(ctx context.Context, workspaceID string) (int, error) {
	return creditstore.New(c.store).CreditsUsed(ctx, workspaceID, c.Month())
}
