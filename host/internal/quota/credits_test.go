package quota_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// credits is a checker whose "tiny" plan allows 3 credits a month, on a
// clock fixed in January 2027 (not this month: a kit that ignored its
// clock would show), over a workspace on that plan.
func credits(t *testing.T) (*quota.Checker, *store.Store, auth.Principal) {
	t.Helper()
	s := storetest.SQLite(t)
	ws, user, err := s.EnsureWorkspaceUser(context.Background(), "acme", "tiny", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	table := plans.New(map[string]config.Plan{"tiny": {MonthlyAICredits: 3}})
	now := func() time.Time { return time.Date(2027, 1, 31, 23, 59, 0, 0, time.UTC) }
	c := quota.New(s, config.Limits{}).Follow(table).WithClock(now)
	return c, s, auth.Principal{WorkspaceID: ws.ID, UserID: user.ID, Plan: "tiny", Via: auth.ViaAPIKey}
}

func used(t *testing.T, s *store.Store, ws, month string) int {
	t.Helper()
	n, err := creditstore.New(s).CreditsUsed(context.Background(), ws, month)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReserveTakesCreditsUpToThePlansMonthlyAllowance(t *testing.T) {
	t.Parallel()
	c, s, p := credits(t)
	ctx := context.Background()
	if c.Month() != "2027-01" {
		t.Fatalf("month %q, want the clock's 2027-01", c.Month())
	}
	if _, err := c.Reserve(ctx, p, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reserve(ctx, p, 1); err != nil { // 3 of 3: at the allowance
		t.Fatalf("the last credit: %v", err)
	}
	_, err := c.Reserve(ctx, p, 1)
	want := "monthly AI credit limit reached: the tiny plan allows 3 credits a month, and this needs 1"
	if connect.CodeOf(err) != connect.CodePermissionDenied || !strings.Contains(err.Error(), want) {
		t.Fatalf("over the allowance: %v, want 403 %q", err, want)
	}
	if !quota.IsCreditLimit(err) || quota.IsCreditLimit(apierr.Forbidden("another 403")) {
		t.Fatalf("IsCreditLimit tells the credits' refusal from other 403s: %v", err)
	}
	if n := used(t, s, p.WorkspaceID, "2027-01"); n != 3 {
		t.Fatalf("used %d, want 3 (a refused reservation takes nothing)", n)
	}
	// Another month is another allowance.
	if n := used(t, s, p.WorkspaceID, "2027-02"); n != 0 {
		t.Fatalf("February used %d", n)
	}
}

func TestARefundGivesTheCreditsBackOnceEvenAfterCancel(t *testing.T) {
	t.Parallel()
	c, s, p := credits(t)
	ctx, cancel := context.WithCancel(context.Background())
	refund, err := c.Reserve(ctx, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reserve(context.Background(), p, 2); err != nil {
		t.Fatal(err)
	}
	cancel() // the request ended; the work failed
	refund()
	refund() // a second call gives nothing more back
	if n := used(t, s, p.WorkspaceID, "2027-01"); n != 2 {
		t.Fatalf("used %d after the refund, want 2 (the other work's credits stay taken)", n)
	}
}

func TestABackgroundPrincipalIsChargedOnItsWorkspacesPlan(t *testing.T) {
	t.Parallel()
	c, s, p := credits(t)
	ctx := context.Background()
	job := auth.Principal{WorkspaceID: p.WorkspaceID} // no plan: a queued job
	name, plan, err := c.Plan(ctx, job)
	if err != nil || name != "tiny" || plan.MonthlyAICredits != 3 {
		t.Fatalf("plan of a job: %q %+v %v, want the workspace's tiny plan", name, plan, err)
	}
	if _, err := c.Reserve(ctx, job, 4); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("4 credits on a 3-credit plan: %v", err)
	}
	if n := used(t, s, p.WorkspaceID, "2027-01"); n != 0 {
		t.Fatalf("used %d", n)
	}
}

func TestCheckCreditsRefusesWithoutTaking(t *testing.T) {
	t.Parallel()
	c, s, p := credits(t)
	ctx := context.Background()
	if err := c.CheckCredits(ctx, p, 3); err != nil {
		t.Fatalf("3 of 3 free: %v", err)
	}
	if err := c.CheckCredits(ctx, p, 4); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("4 of 3: %v", err)
	}
	if _, err := c.Reserve(ctx, p, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckCredits(ctx, p, 3); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("3 with 2 left: %v", err)
	}
	if n := used(t, s, p.WorkspaceID, "2027-01"); n != 1 {
		t.Fatalf("used %d, want 1 (checks take nothing)", n)
	}
}

func TestReserveTxReportsTheUsageWhenItRefuses(t *testing.T) {
	t.Parallel()
	c, s, p := credits(t)
	ctx := context.Background()
	plan := config.Plan{MonthlyAICredits: 3}
	var used1, used2 int
	var ok1, ok2 bool
	err := s.Tx(ctx, func(q store.Querier) error {
		var err error
		if used1, ok1, err = c.ReserveTx(ctx, q, p.WorkspaceID, "2027-01", plan, 2); err != nil {
			return err
		}
		used2, ok2, err = c.ReserveTx(ctx, q, p.WorkspaceID, "2027-01", plan, 2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !ok1 || ok2 || used2 != 2 || used1 != 0 {
		t.Fatalf("first (%v, used %d), second (%v, used %d); want the first taken and the second refused with 2 used", ok1, used1, ok2, used2)
	}
	c.Refund(ctx, p.WorkspaceID, "2027-01", 2)
	c.Refund(ctx, p.WorkspaceID, "2027-01", 0) // nothing
	if n := used(t, s, p.WorkspaceID, "2027-01"); n != 0 {
		t.Fatalf("used %d after the refund", n)
	}
}

// A refund that fails is logged (the caller reports the work's own
// error, so the log is where a lost refund shows); one that succeeds, or
// that has nothing to give back, logs nothing and, for nothing, does not
// touch the store.
func TestAFailedRefundIsLoggedAndARefundOfNothingTouchesNothing(t *testing.T) {
	t.Parallel()
	c, s, p := credits(t)
	var logs strings.Builder
	c = c.WithLogger(hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug}))
	ctx := context.Background()
	if _, err := c.Reserve(ctx, p, 2); err != nil {
		t.Fatal(err)
	}
	c.Refund(ctx, p.WorkspaceID, "2027-01", 1)
	if n := used(t, s, p.WorkspaceID, "2027-01"); n != 1 || logs.Len() != 0 {
		t.Fatalf("a refund that worked: used %d (want 1), logged %q (want nothing)", n, logs.String())
	}
	s.Close() // every store call fails from here on
	c.Refund(ctx, p.WorkspaceID, "2027-01", 0)
	c.Refund(ctx, p.WorkspaceID, "2027-01", -1)
	if logs.Len() != 0 {
		t.Fatalf("a refund of nothing reached the store: %q", logs.String())
	}
	c.Refund(ctx, p.WorkspaceID, "2027-01", 1)
	if !strings.Contains(logs.String(), "refund AI credits") || !strings.Contains(logs.String(), "credits=1") {
		t.Fatalf("a failed refund was not logged: %q", logs.String())
	}
}
