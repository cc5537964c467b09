package main

import (
	"fmt"
	"maps"
	"net/mail"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscodedeploy"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// CDK context keys of the operations settings (cdk.json, or
// `npx cdk deploy -c alarmEmail=ops@example.com`). README lists them.
const (
	CtxAlarmEmail          = "alarmEmail"
	CtxLogRetentionDays    = "logRetentionDays"
	CtxDeployment          = "deployment"
	CtxWAF                 = "waf"
	CtxWAFRequestsPer5Min  = "wafRequestsPer5Min"
	CtxWebACLArn           = "webAclArn"
	CtxMediaDomainName     = "mediaDomainName"
	CtxMediaCertificateArn = "mediaCertificateArn"
	CtxAPIDomainName       = "apiDomainName"
	CtxAPICertificateArn   = "apiCertificateArn"
	CtxStageThrottle       = "stageThrottle"
	CtxRouteThrottles      = "routeThrottles"
	CtxReservedConcurrency = "reservedConcurrency"
	CtxStoreDomains        = "storeDomains"
	CtxOpenSearch          = "opensearch"
)

// OpsProps are the operations settings of the stack. The zero value is a
// working stack: no alarm subscription, 30-day logs, canary deploys, no
// WAF, media on the CloudFront domain.
type OpsProps struct {
	// AlarmEmail, when set, is subscribed to the alarm topic (it must
	// confirm the subscription). Other subscribers (a pager, a chat
	// webhook) subscribe to the topic the stack outputs.
	AlarmEmail string
	// LogRetentionDays is how long every log group keeps its events and
	// the access-log bucket its objects; 0 means 30.
	LogRetentionDays int
	// Deployment is how a new version of each function takes traffic:
	// DeployCanary (default), DeployLinear or DeployAllAtOnce.
	Deployment string
	// WAF puts a web ACL (AWS managed common rules and a per-address rate
	// rule) on the media CDN and on a CloudFront front door of the API
	// (waf.go). The ACL is made in the stack when it is deployed to
	// us-east-1 (CloudFront's ACLs live there), or WebACLArn names one
	// made there.
	WAF bool
	// WAFRequestsPer5Min is the rate rule's limit per client address over
	// five minutes; 0 means 2000.
	WAFRequestsPer5Min int
	WebACLArn          string
	// MediaDomainName and MediaCertificateArn serve media on your own
	// domain with an ACM certificate (us-east-1), which lets CloudFront
	// refuse viewers below TLS 1.2; APIDomainName and APICertificateArn
	// do the same for the API's front door (with WAF).
	MediaDomainName     string
	MediaCertificateArn string
	APIDomainName       string
	APICertificateArn   string
	// StageThrottle is the API's default stage throttle; zero means
	// defaultStageThrottle. RouteThrottles add to or replace
	// defaultRouteThrottles, by route-table key ("GET /v1/…": a GET's
	// applies to its HEAD too). throttle.go says why the defaults.
	StageThrottle  Throttle
	RouteThrottles map[string]Throttle
	// NoStoreDomains (context storeDomains=false) deploys without the
	// store-domains distribution (storeDomainsPlan).
	NoStoreDomains bool
	// OpenSearch (context opensearch=true) makes an OpenSearch Serverless
	// collection and has the books group search it (search.go).
	OpenSearch bool
	// ReservedConcurrency reserves concurrent executions per function, by
	// name; none by default (a new account cannot reserve any).
	ReservedConcurrency map[string]int
}

// Deployment styles.
const (
	DeployCanary    = "canary"      // 10 % for 5 minutes, then all
	DeployLinear    = "linear"      // 10 % more every minute
	DeployAllAtOnce = "all-at-once" // still through CodeDeploy and its alarms
)

// defaults
const (
	defaultLogRetentionDays   = 30
	defaultWAFRequestsPer5Min = 2000
)

// retentionDays are the retention periods CloudWatch Logs accepts.
var retentionDays = map[int]awslogs.RetentionDays{
	1: awslogs.RetentionDays_ONE_DAY, 3: awslogs.RetentionDays_THREE_DAYS, 5: awslogs.RetentionDays_FIVE_DAYS,
	7: awslogs.RetentionDays_ONE_WEEK, 14: awslogs.RetentionDays_TWO_WEEKS, 30: awslogs.RetentionDays_ONE_MONTH,
	60: awslogs.RetentionDays_TWO_MONTHS, 90: awslogs.RetentionDays_THREE_MONTHS, 120: awslogs.RetentionDays_FOUR_MONTHS,
	150: awslogs.RetentionDays_FIVE_MONTHS, 180: awslogs.RetentionDays_SIX_MONTHS, 365: awslogs.RetentionDays_ONE_YEAR,
	400: awslogs.RetentionDays_THIRTEEN_MONTHS, 545: awslogs.RetentionDays_EIGHTEEN_MONTHS, 731: awslogs.RetentionDays_TWO_YEARS,
	1096: awslogs.RetentionDays_THREE_YEARS, 1827: awslogs.RetentionDays_FIVE_YEARS, 2192: awslogs.RetentionDays_SIX_YEARS,
	2557: awslogs.RetentionDays_SEVEN_YEARS, 2922: awslogs.RetentionDays_EIGHT_YEARS, 3288: awslogs.RetentionDays_NINE_YEARS,
	3653: awslogs.RetentionDays_TEN_YEARS,
}

// OpsFromContext reads the settings from the CDK context of node,
// refusing a malformed one with a message naming its key.
func OpsFromContext(node constructs.Node) (OpsProps, error) {
	str := func(key string) string {
		v := node.TryGetContext(jsii.String(key))
		if v == nil {
			return ""
		}
		return strings.TrimSpace(fmt.Sprint(v))
	}
	var errs []string
	integer := func(key string) int {
		s := str(key)
		if s == "" {
			return 0
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Sprintf("context %s must be a positive integer, got %q", key, s))
		}
		return n
	}
	o := OpsProps{
		AlarmEmail:          str(CtxAlarmEmail),
		LogRetentionDays:    integer(CtxLogRetentionDays),
		Deployment:          str(CtxDeployment),
		WAFRequestsPer5Min:  integer(CtxWAFRequestsPer5Min),
		WebACLArn:           str(CtxWebACLArn),
		MediaDomainName:     str(CtxMediaDomainName),
		MediaCertificateArn: str(CtxMediaCertificateArn),
		APIDomainName:       str(CtxAPIDomainName),
		APICertificateArn:   str(CtxAPICertificateArn),
	}
	for key, into := range map[string]any{CtxStageThrottle: &o.StageThrottle, CtxRouteThrottles: &o.RouteThrottles, CtxReservedConcurrency: &o.ReservedConcurrency} {
		if err := parseObject(key, node.TryGetContext(jsii.String(key)), into); err != nil {
			errs = append(errs, err.Error())
		}
	}
	flag := func(key string, unset bool) bool {
		switch v := strings.ToLower(str(key)); v {
		case "":
			return unset
		case "true", "1", "on":
			return true
		case "false", "0", "off":
			return false
		default:
			errs = append(errs, fmt.Sprintf("context %s must be true or false, got %q", key, v))
			return unset
		}
	}
	o.NoStoreDomains = !flag(CtxStoreDomains, true)
	o.WAF = flag(CtxWAF, false)
	o.OpenSearch = flag(CtxOpenSearch, false)
	if err := o.check(); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return OpsProps{}, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return o, nil
}

// check refuses settings the stack cannot honour.
func (o OpsProps) check() error {
	var errs []string
	if o.AlarmEmail != "" {
		if a, err := mail.ParseAddress(o.AlarmEmail); err != nil || a.Address != o.AlarmEmail {
			errs = append(errs, fmt.Sprintf("%s %q is not an email address", CtxAlarmEmail, o.AlarmEmail))
		}
	}
	if o.LogRetentionDays != 0 {
		if _, ok := retentionDays[o.LogRetentionDays]; !ok {
			var allowed []int
			for d := range retentionDays {
				allowed = append(allowed, d)
			}
			slices.Sort(allowed)
			errs = append(errs, fmt.Sprintf("%s must be one of CloudWatch's periods %v, got %d", CtxLogRetentionDays, allowed, o.LogRetentionDays))
		}
	}
	switch o.Deployment {
	case "", DeployCanary, DeployLinear, DeployAllAtOnce:
	default:
		errs = append(errs, fmt.Sprintf("%s must be %s, %s or %s, got %q", CtxDeployment, DeployCanary, DeployLinear, DeployAllAtOnce, o.Deployment))
	}
	if (o.MediaDomainName == "") != (o.MediaCertificateArn == "") {
		errs = append(errs, fmt.Sprintf("%s and %s go together", CtxMediaDomainName, CtxMediaCertificateArn))
	}
	if (o.APIDomainName == "") != (o.APICertificateArn == "") {
		errs = append(errs, fmt.Sprintf("%s and %s go together", CtxAPIDomainName, CtxAPICertificateArn))
	}
	if o.StageThrottle != (Throttle{}) && (o.StageThrottle.Rate <= 0 || o.StageThrottle.Burst <= 0) {
		errs = append(errs, fmt.Sprintf("%s needs a positive rate and burst, got %+v", CtxStageThrottle, o.StageThrottle))
	}
	for _, key := range slices.Sorted(maps.Keys(o.RouteThrottles)) {
		th := o.RouteThrottles[key]
		method, path, ok := strings.Cut(key, " ")
		if !ok || method == "" || !strings.HasPrefix(path, "/") || th.Rate <= 0 || th.Burst <= 0 {
			errs = append(errs, fmt.Sprintf("%s: %q must be \"METHOD /path\" with a positive rate and burst, got %+v", CtxRouteThrottles, key, th))
		}
	}
	reserved := 0
	for _, name := range slices.Sorted(maps.Keys(o.ReservedConcurrency)) {
		n := o.ReservedConcurrency[name]
		if n <= 0 {
			errs = append(errs, fmt.Sprintf("%s: %s must be a positive number of executions, got %d", CtxReservedConcurrency, name, n))
		}
		reserved += n
	}
	if reserved > maxReserved {
		errs = append(errs, fmt.Sprintf("%s reserves %d executions in all; Lambda keeps 100 of an account's 1,000 unreserved, so at most %d", CtxReservedConcurrency, reserved, maxReserved))
	}
	if o.APIDomainName != "" && !o.WAF {
		errs = append(errs, fmt.Sprintf("%s names the API's CloudFront front door, which only %s=true creates", CtxAPIDomainName, CtxWAF))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// retention is the log retention of o.
func (o OpsProps) retention() awslogs.RetentionDays {
	if r, ok := retentionDays[o.LogRetentionDays]; ok {
		return r
	}
	return retentionDays[defaultLogRetentionDays]
}

// retentionDays is o's retention in days.
func (o OpsProps) retentionInDays() int {
	if o.LogRetentionDays == 0 {
		return defaultLogRetentionDays
	}
	return o.LogRetentionDays
}

// deploymentConfig is CodeDeploy's configuration for o.Deployment.
func (o OpsProps) deploymentConfig() awscodedeploy.ILambdaDeploymentConfig {
	switch o.Deployment {
	case DeployLinear:
		return awscodedeploy.LambdaDeploymentConfig_LINEAR_10PERCENT_EVERY_1MINUTE()
	case DeployAllAtOnce:
		return awscodedeploy.LambdaDeploymentConfig_ALL_AT_ONCE()
	}
	return awscodedeploy.LambdaDeploymentConfig_CANARY_10PERCENT_5MINUTES()
}

func (o OpsProps) wafRequestsPer5Min() int {
	if o.WAFRequestsPer5Min == 0 {
		return defaultWAFRequestsPer5Min
	}
	return o.WAFRequestsPer5Min
}
