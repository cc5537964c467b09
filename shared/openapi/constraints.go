package openapi

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/inventory/csvimport"
	"github.com/bookplatform/backend/shared/reports"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/bookplatform/backend/shared/users"
	wh "github.com/bookplatform/backend/shared/webhooks"
	"github.com/getkin/kin-openapi/openapi3"
)

// Constraints the handlers enforce that a field's Go type does not say
// (a string that holds a UUID, a timestamp, one of a few values; an int
// from 1 to 5). The reference states them so that a generated client
// types and checks them (uuid.UUID, time.Time, an enum type). They are
// given by property name, the way the API names its fields, with
// exceptions and per-component rules in tables; the build fails when a
// table names a property no component has, so a rename cannot drop one
// silently.

// notUUID are the string properties named like an id that are none.
var notUUID = map[string]bool{
	"ErrorObject.requestId":          true, // the router's request id
	"AdminAuditJSON.actorId":         true, // cli:<name> for the operator command (local/operator)
	"AdminAuditJSON.targetId":        true, // a reply's id, a payout's opaque id
	"LineReply.id":                   true, // a reply id orders replies by time (lines.NewReplyID)
	"Report.targetId":                true, // a reply's id when the target is a reply
	"ReportCreateRequest.targetId":   true,
	"AdminReportTarget.id":           true, // a reply's id when the target is a reply
	"ReportTakenDown.id":             true, // a reply's id when it is a reply
	"*.externalItemId":               true, // the external point-of-sale system's id
	"ExtPosSyncError.externalItemId": true, // the point-of-sale system's own id
	"*.checkoutSessionId":            true, // the payment provider's session (pi_...)
	"*.sessionId":                    true,
	"*.paymentMethodId":              true, // the payment provider's (pm_...)
	"OrderItemData.id":               true, // an order item: <orderId>-<n>
	"PaymentWebhookBody.id":          true, // the provider's event id (evt_...)
	// Payouts and orders carry opaque ids (spec: Conventions).
	"EarningCommission.id":      true,
	"EarningCommission.orderId": true,
	"EarningPoolPayout.id":      true,
	"AdminCommission.id":        true, // the back office's payouts (adminapi, money.go)
	"AdminCommission.orderId":   true,
	"AdminPoolPayout.id":        true,
	// A webhook delivery's id is a version-7 UUID (webhooks.DeliveryID:
	// its time is its event's), which the uuid format's pattern of the
	// validator (versions 1 to 5) refuses: it is an opaque string.
	"WebhookDelivery.id":             true,
	"WebhookDeliveryDetail.id":       true,
	"WebhookTestResponse.deliveryId": true,
}

// enums are the values a property takes, keyed "Component.property"
// ("*.property": in every component). Each list is the domain's own
// constants.
var enums = map[string][]string{
	"*.tier": strs(users.TierFree, users.TierPremium, users.TierBookstore),
	// Webhook endpoints and their deliveries.
	"WebhookEndpoint.status":           strs(wh.Active, wh.Disabled),
	"WebhookEndpointWithSecret.status": strs(wh.Active, wh.Disabled),
	"WebhookDelivery.status":           strs(wh.Pending, wh.Succeeded, wh.Failed),
	"WebhookDeliveryDetail.status":     strs(wh.Pending, wh.Succeeded, wh.Failed),
	// A member's role, wherever it is shown (also the inline membership
	// of ClubRoleChange, which has no component name to key it by).
	"*.role":                           strs(clubs.RoleHost, clubs.RoleModerator, clubs.RoleMember),
	"JoinedClub.memberRole":            strs(clubs.RoleHost, clubs.RoleModerator, clubs.RoleMember),
	"ClubView.memberRole":              strs(clubs.RoleHost, clubs.RoleModerator, clubs.RoleMember),
	"ClubRoleRequest.role":             strs(clubs.RoleModerator, clubs.RoleMember), // the host is not a role to give
	"ClubBook.status":                  strs(clubs.StatusUpcoming, clubs.StatusCurrent, clubs.StatusCompleted),
	"EditedClubBook.status":            strs(clubs.StatusUpcoming, clubs.StatusCurrent, clubs.StatusCompleted),
	"ClubAddBookRequest.status":        strs(clubs.StatusUpcoming, clubs.StatusCurrent, clubs.StatusCompleted),
	"ClubUpdateBookRequest.status":     strs(clubs.StatusUpcoming, clubs.StatusCurrent, clubs.StatusCompleted),
	"Report.targetType":                strs(reports.TargetLine, reports.TargetReply, reports.TargetReview, reports.TargetClub),
	"ReportCreateRequest.targetType":   strs(reports.TargetLine, reports.TargetReply, reports.TargetReview, reports.TargetClub),
	"Report.status":                    strs(reports.StatusOpen),
	"AdminReport.status":               reports.Statuses,
	"AdminReportTarget.type":           strs(reports.TargetLine, reports.TargetReply, reports.TargetReview, reports.TargetClub),
	"ReportTakenDown.type":             strs(reports.TargetLine, reports.TargetReply, reports.TargetReview, reports.TargetClub),
	"AdminReportResolution.action":     reports.Resolutions,
	"AdminResolveReportRequest.action": reports.Resolutions,
	"StoreDomainStatusResponse.status": strs(stores.DomainNone, stores.DomainPending, stores.DomainVerified, stores.DomainActive),
	"StoreSiteDomain.status":           strs(stores.DomainNone, stores.DomainPending, stores.DomainVerified, stores.DomainActive),
	"*.condition":                      strs(inventory.Conditions...),
	"InventoryChangeData.cause": strs(inventory.CauseCreate, inventory.CauseAdjust, inventory.CauseImport, inventory.CauseSync,
		inventory.CauseDelete, inventory.CauseOrder, inventory.CauseCancel, inventory.CauseSale),
	"ImportResult.status":      strs(csvimport.Running, csvimport.Done, csvimport.Failed),
	"ExtPosSyncRequest.mode":   strs(extpos.Import, extpos.Export, extpos.TwoWay),
	"ExtPosSyncAnswer.mode":    strs(extpos.Import, extpos.Export, extpos.TwoWay),
	"ExtPosSyncAnswer.status":  strs(extpos.JobQueued, extpos.JobDone, extpos.JobFailed),
	"EarningCommission.status": strs(earnings.Pending, earnings.Paid),
	"EarningPoolPayout.status": strs(earnings.Pending, earnings.Paid),
	"AdminCommission.status":   strs(earnings.Pending, earnings.Paid),
	"AdminPoolPayout.status":   strs(earnings.Pending, earnings.Paid),

	"TradecreditEntry.kind": strs(tradecredit.Grant, tradecredit.Adjust, tradecredit.Sale),
}

// ranges are the bounds of a number property, keyed as enums.
var ranges = map[string][2]float64{
	"*.rating":    {1, 5},
	"*.latitude":  {-90, 90},
	"*.longitude": {-180, 180},
	// Stock: quantities and amounts (inventory's bounds).
	"*.quantity":         {0, inventory.MaxQuantity},
	"*.previousQuantity": {0, inventory.MaxQuantity},
	"*.priceCents":       {0, inventory.MaxPriceCents},
	"*.costCents":        {0, inventory.MaxPriceCents},

	// Trade credit: a change's amount, either way (not 0).
	"TradecreditChangeRequest.amountCents": {-tradecredit.MaxAmountCents, tradecredit.MaxAmountCents},
}

// dates are the string properties that hold a calendar date
// (YYYY-MM-DD), keyed as enums; a property named ...At holds a date-time.
var dates = map[string]bool{"*.startDate": true, "*.endDate": true}

func strs[S ~string](ss ...S) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// constraintsUsed records which table entries matched a property.
type constraintsUsed map[string]bool

// constrain applies the tables to the properties of component (its name;
// "" for an inline object).
func (s *schemas) constrain(component string, obj *openapi3.Schema) {
	for name, prop := range obj.Properties {
		if prop.Ref != "" || prop.Value == nil {
			continue
		}
		v := prop.Value
		lookup := func(m func(string) bool) (string, bool) {
			for _, key := range []string{component + "." + name, "*." + name} {
				if m(key) {
					s.used[key] = true
					return key, true
				}
			}
			return "", false
		}
		isString := v.Type.Includes(openapi3.TypeString)
		// book_id: the one route the spec shows in snake_case.
		if isString && (name == "id" || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "_id")) && v.Format == "" {
			if _, skip := lookup(func(k string) bool { return notUUID[k] }); !skip {
				v.Format = "uuid"
			}
		}
		if isString && strings.HasSuffix(name, "At") && v.Format == "" {
			v.Format = "date-time"
		}
		if _, ok := lookup(func(k string) bool { return dates[k] }); ok && isString {
			v.Format = "date"
		}
		if key, ok := lookup(func(k string) bool { return enums[k] != nil }); ok {
			v.Enum = anys(enums[key])
			if v.Type.Includes(openapi3.TypeNull) {
				v.Enum = append(v.Enum, nil)
			}
		}
		if key, ok := lookup(func(k string) bool { _, ok := ranges[k]; return ok }); ok {
			r := ranges[key]
			v.Min, v.Max = new(r[0]), new(r[1])
		}
	}
}

// unusedConstraints names the table entries no property matched.
func (s *schemas) unusedConstraints() error {
	var unused []string
	for _, table := range []map[string]bool{keys(notUUID), keys(enums), keys(ranges), keys(dates)} {
		for k := range table {
			if !s.used[k] {
				unused = append(unused, k)
			}
		}
	}
	if len(unused) == 0 {
		return nil
	}
	sort.Strings(unused)
	return fmt.Errorf("constraints name properties no component has (renamed?): %s", strings.Join(unused, ", "))
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
