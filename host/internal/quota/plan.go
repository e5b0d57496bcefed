package quota

import (
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/plans"
)

// SchedulerAPI is the plan rule of /v1/scheduler, /v1/destinations and
// /v1/webhooks: a session may always use them; an api-key needs a plan
// with scheduler_api_access (403 otherwise).
func SchedulerAPI(t *plans.Table, p auth.Principal) error {
	if plan, _ := t.Get(p.Plan); p.Via == auth.ViaAPIKey && !plan.SchedulerAPIAccess {
		return apierr.Forbidden("the scheduler API needs the business plan or higher (this workspace is on the %s plan); upgrade, or use a session", p.Plan)
	}
	return nil
}
