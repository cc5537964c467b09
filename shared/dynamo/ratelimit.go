package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// Counters counts requests in rate-limit windows: every window of one
// caller and hour is an attribute of one item (RateBucketKey), so a
// request is counted with one conditional UpdateItem whatever its rules.
type Counters struct{ t *table }

var _ ratelimit.Counter = (*Counters)(nil)

// minuteRules are the rules whose window is shorter than the bucket;
// their attributes of the minute before are removed as a new minute
// starts, which keeps a busy caller's item small (a write costs by item
// size).
var minuteRules = func() []ratelimit.Rule {
	out := []ratelimit.Rule{ratelimit.TierRule(ratelimit.TierGuest)}
	for _, r := range ratelimit.Actions {
		if r.Window < ratelimit.Bucket {
			out = append(out, r)
		}
	}
	return out
}()

// Count adds one to every window of ws if every count stays within its
// limit, with one UpdateItem: ADD each window's attribute, conditional
// on each being under its limit (absent counts as 0), setting the item's
// type and TTL once, and removing the previous minute's attributes. On
// a failed condition DynamoDB returns the item as it stood, which gives
// the counts that refused it. Access pattern: "count a request in a
// caller's rate-limit windows".
func (s *Counters) Count(ctx context.Context, scope string, ws []ratelimit.Window) ([]int64, bool, error) {
	if len(ws) == 0 {
		return nil, true, nil
	}
	bucket := ws[0].Start.Truncate(ratelimit.Bucket)
	names := map[string]string{"#type": "type", "#exp": AttrTTL}
	values := map[string]types.AttributeValue{
		":one":  &types.AttributeValueMemberN{Value: "1"},
		":type": &types.AttributeValueMemberS{Value: typeRateBucket},
		// The item goes a minute after its hour: no window outlives it.
		":exp": &types.AttributeValueMemberN{Value: strconv.FormatInt(bucket.Add(ratelimit.Bucket+time.Minute).Unix(), 10)},
	}
	attrs := make([]string, len(ws))
	current := map[string]bool{}
	var adds, conds []string
	for i, w := range ws {
		attrs[i] = rateAttr(w.Rule.Name, w.Start, bucket, w.Rule.Window)
		current[attrs[i]] = true
		n, l := "#a"+strconv.Itoa(i), ":l"+strconv.Itoa(i)
		names[n] = attrs[i]
		values[l] = &types.AttributeValueMemberN{Value: strconv.FormatInt(w.Rule.Limit, 10)}
		adds = append(adds, n+" :one")
		conds = append(conds, "(attribute_not_exists("+n+") OR "+n+" < "+l+")")
	}
	// The latest window start is the request's minute (an hour window
	// starts at the bucket).
	latest := ws[0].Start
	for _, w := range ws {
		if w.Start.After(latest) {
			latest = w.Start
		}
	}
	var removes []string
	for i, r := range minuteRules {
		prev := latest.Truncate(r.Window).Add(-r.Window)
		if prev.Before(bucket) {
			continue // the minute before is in the previous hour's item
		}
		a := rateAttr(r.Name, prev, bucket, r.Window)
		if current[a] {
			continue
		}
		n := "#p" + strconv.Itoa(i)
		names[n] = a
		removes = append(removes, n)
	}
	expr := "ADD " + strings.Join(adds, ", ") + " SET #type = if_not_exists(#type, :type), #exp = if_not_exists(#exp, :exp)"
	if len(removes) > 0 {
		expr += " REMOVE " + strings.Join(removes, ", ")
	}
	k := RateBucketKey(scope, bucket)
	out, err := s.t.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.t.name),
		Key:                                 keyAttrs(k),
		UpdateExpression:                    aws.String(expr),
		ConditionExpression:                 aws.String(strings.Join(conds, " AND ")),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueUpdatedNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf):
		return countsOf(ccf.Item, attrs), false, nil
	case err != nil:
		return nil, false, fmt.Errorf("count request of %s: %w", scope, err)
	}
	return countsOf(out.Attributes, attrs), true, nil
}

// Refund takes one back from every window of ws, never below zero.
func (s *Counters) Refund(ctx context.Context, scope string, ws []ratelimit.Window) error {
	if len(ws) == 0 {
		return nil
	}
	bucket := ws[0].Start.Truncate(ratelimit.Bucket)
	names := map[string]string{}
	var adds, conds []string
	for i, w := range ws {
		n := "#a" + strconv.Itoa(i)
		names[n] = rateAttr(w.Rule.Name, w.Start, bucket, w.Rule.Window)
		adds = append(adds, n+" :minus")
		conds = append(conds, n+" > :zero")
	}
	_, err := s.t.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.t.name),
		Key:                      keyAttrs(RateBucketKey(scope, bucket)),
		UpdateExpression:         aws.String("ADD " + strings.Join(adds, ", ")),
		ConditionExpression:      aws.String(strings.Join(conds, " AND ")),
		ExpressionAttributeNames: names,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":minus": &types.AttributeValueMemberN{Value: "-1"},
			":zero":  &types.AttributeValueMemberN{Value: "0"},
		},
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return fmt.Errorf("refund request of %s: %w", scope, err)
	}
	return nil
}

// countsOf reads the counts of attrs from an item; an absent one is 0.
func countsOf(item map[string]types.AttributeValue, attrs []string) []int64 {
	counts := make([]int64, len(attrs))
	for i, a := range attrs {
		if n, ok := item[a].(*types.AttributeValueMemberN); ok {
			counts[i], _ = strconv.ParseInt(n.Value, 10, 64)
		}
	}
	return counts
}

// keyAttrs is k as the SDK's key map.
func keyAttrs(k Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		AttrPK: &types.AttributeValueMemberS{Value: k.PK},
		AttrSK: &types.AttributeValueMemberS{Value: k.SK},
	}
}

// ResetUser clears a user's rate-limit counts (the back office's limit
// reset): those of one action (a rule name: ratelimit.Actions, or
// ratelimit.RequestAction), or all when action is "". Every window is at
// most the bucket's hour and aligned to it, so only the current bucket
// (RateBucketKey at now) holds a live count: its attributes of the
// action are removed, or the whole item. One read, then one transaction
// that also requires the account to exist (the audit entry rides it, and
// an unknown user is users.ErrNotFound). It returns how many windows had
// a count. The bucket can go between the read and the transaction (its
// hour ended, or another operator's reset of all deleted it): nothing is
// left to clear then, and the reset runs again without it (the check of
// the account, with the audit entry, alone), answering 0 cleared.
// Access pattern: "clear a user's rate-limit counters".
func (s *Counters) ResetUser(ctx context.Context, userID, action string, now time.Time) (int, error) {
	return s.resetUser(ctx, userID, action, now, nil)
}

// resetUser is ResetUser; between, when not nil, runs between the read
// and the transaction (the tests' hook, to remove the bucket there).
func (s *Counters) resetUser(ctx context.Context, userID, action string, now time.Time, between func()) (int, error) {
	k := RateBucketKey("user:"+userID, now.Truncate(ratelimit.Bucket))
	var item map[string]any
	err := s.t.get(k).Consistent(true).One(ctx, &item)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return 0, fmt.Errorf("read rate counts of %s: %w", userID, err)
	}
	var attrs []string
	for a, v := range item {
		rule, _, ok := strings.Cut(a, "@")
		if !ok || (action != "" && rule != action) {
			continue
		}
		if n, isNum := v.(float64); isNum && n > 0 {
			attrs = append(attrs, a)
		}
	}
	if between != nil {
		between()
	}
	n, err := s.reset(ctx, userID, k, action, attrs)
	if errors.Is(err, errRateBucketGone) {
		// The counts read are gone with their bucket: the reset is
		// the account's check alone (the audit entry rides it).
		n, err = s.reset(ctx, userID, k, action, nil)
	}
	return n, err
}

// reset is ResetUser's transaction over the windows read (attrs).
func (s *Counters) reset(ctx context.Context, userID string, k Key, action string, attrs []string) (int, error) {
	x := s.t.tx().check(s.t.check(UserKey(userID)).If("attribute_exists(PK)"), users.ErrNotFound)
	switch {
	case action == "":
		// Whether or not the read found it: one plan for every reset.
		x.delete(s.t.del(k), nil)
	case len(attrs) > 0:
		// The attribute names hold "@": placeholders, not paths.
		names := make([]any, len(attrs))
		for i, a := range attrs {
			names[i] = a
		}
		expr := strings.TrimSuffix(strings.Repeat("$, ", len(attrs)), ", ")
		x.update(s.t.update(k).RemoveExpr(expr, names...).If("attribute_exists(PK)"), errRateBucketGone)
	}
	if err := x.run(ctx); err != nil {
		return 0, fmt.Errorf("reset rate counts of %s: %w", userID, err)
	}
	return len(attrs), nil
}

// errRateBucketGone: the bucket went between the read and the reset
// (its hour ended, or a reset of all deleted it): the counts are gone
// anyway; ResetUser runs again without it.
var errRateBucketGone = errors.New("rate bucket gone during reset")
