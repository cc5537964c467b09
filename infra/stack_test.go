package main

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/importjob"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/images"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/s3media"
)

// template is the stack synthesized once for the package: synthesis costs
// seconds and half a gigabyte, every test reads the same result. The app
// holds a second stack, hardened, with every operations setting on (WAF,
// own domains, an alarm subscription, linear deploys, 90-day logs): it is
// synthesized in the same pass.
var (
	template assertions.Template
	stack    awscdk.Stack

	hardened      assertions.Template
	hardenedStack awscdk.Stack
	// deployedStack is the stack as `make synth` makes it: the
	// repository's functions only (TestStackSize).
	deployedStack awscdk.Stack
	// samStack is synthesized for SAM CLI (sam_test.go);
	// samEveryOptionStack too, with every option the stack takes on
	// (hardenedOps: OpenSearch, WAF, domains, a mail domain).
	samStack            awscdk.Stack
	samEveryOptionStack awscdk.Stack
	assembly            cxapi.CloudAssembly
	hardenedOps         = OpsProps{
		AlarmEmail: "ops@example.com", LogRetentionDays: 90, Deployment: DeployLinear, WAF: true,
		MediaDomainName: "media.bookplatform.example", MediaCertificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/media",
		APIDomainName: "api.bookplatform.example", APICertificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/api",
		StageThrottle:       Throttle{Rate: 200, Burst: 400},
		RouteThrottles:      map[string]Throttle{"POST /v1/auth/login": {Rate: 10, Burst: 20}},
		ReservedConcurrency: map[string]int{"authorizer": 50},
		OpenSearch:          true,
	}
)

// Synthetic functions beside the repository's: a consumer of a queue no
// group consumes yet (none once every queue has its worker group) and a
// function that sends to webhooks. The stack must give them their queue
// wiring, and nobody else any.
var (
	testWorker = groups.Function{
		Name:         "testworker",
		Worker:       &api.Worker{BatchSize: 5}, // Queue: withSynthetic
		TableActions: []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem"},
	}
	testSender = groups.Function{
		Name:         "testsender",
		Sends:        []queues.Name{queues.Webhooks},
		TableActions: []string{"dynamodb:GetItem"},
	}
)

// testStorefront is the test stacks' storefrontOrigin.
const testStorefront = "storefront.test.example"

// testMailDomain is the default test stack's mailFromDomain (the hardened
// one has none: email is off there).
const testMailDomain = "mail.test.example"

// functions are the functions of the test stack.
var functions = withSynthetic(groups.Functions())

// withSynthetic adds the synthetic functions to fs: the test worker on
// the first queue of queues.All that no function of fs consumes, so that
// the worker wiring is tested before any group has a worker and a group's
// worker never shares its queue with the synthetic one.
func withSynthetic(fs []groups.Function) []groups.Function {
	fs = append(fs, testSender)
	for i, f := range fs {
		// The relay sends email once notifications register with it
		// (shared/notify); until then it is given their actions here.
		if f.Relay && len(f.MailActions) == 0 {
			fs[i].MailActions = slices.Clone(mail.Actions)
		}
	}
	consumed := map[queues.Name]bool{}
	for _, f := range fs {
		if f.Worker != nil {
			consumed[f.Worker.Queue] = true
		}
	}
	for _, n := range queues.All {
		if !consumed[n] {
			w := *testWorker.Worker
			w.Queue = n
			tw := testWorker
			tw.Worker = &w
			return append(fs, tw)
		}
	}
	return fs
}

// TestMain is the shared GIVEN: the stack built from the repository's
// route tables and schema, plus the synthetic functions, over dummy
// bootstraps so that no real build is needed.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	defer jsii.Close()
	dir, err := os.MkdirTemp("", "infra-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	buildDir := filepath.Join(dir, "build")
	for _, f := range functions {
		p := filepath.Join(buildDir, f.Name, "bootstrap")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.WriteFile(p, []byte("dummy "+f.Name), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	a := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(filepath.Join(dir, "cdk.out"))})
	stack = NewBackendStack(a, "TestBackend", &BackendStackProps{BuildDir: buildDir, Functions: functions, StorefrontOrigin: testStorefront, MailFromDomain: testMailDomain})
	hardenedStack = NewBackendStack(a, "HardenedBackend", &BackendStackProps{
		StackProps: awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String("123456789012"), Region: jsii.String("us-east-1")}},
		BuildDir:   buildDir, Functions: functions, Ops: hardenedOps, StorefrontOrigin: testStorefront,
	})
	deployedStack = NewBackendStack(a, "DeployedBackend", &BackendStackProps{BuildDir: buildDir})
	samStack = NewBackendStack(a, "SamBackend", &BackendStackProps{BuildDir: buildDir, StorefrontOrigin: testStorefront, SAM: true})
	samEveryOptionStack = NewBackendStack(a, "SamEveryOptionBackend", &BackendStackProps{
		StackProps: awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String("123456789012"), Region: jsii.String("us-east-1")}},
		BuildDir:   buildDir, Functions: functions, Ops: hardenedOps, StorefrontOrigin: testStorefront, MailFromDomain: testMailDomain, SAM: true,
	})
	assembly = a.Synth(nil)
	fromAssembly := func(s awscdk.Stack) assertions.Template {
		t := assembly.GetStackByName(s.StackName()).Template().(map[string]any)
		return assertions.Template_FromJSON(&t, nil)
	}
	template, hardened = fromAssembly(stack), fromAssembly(hardenedStack)
	return m.Run()
}

// must runs CDK assertions, which panic on failure, and reports the panic
// as a test error so that one failed expectation does not hide the rest.
func must(t *testing.T, what string, assert func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	assert()
}

type obj = map[string]any

func arr(v ...any) *[]any { return &v }

func TestTable(t *testing.T) {
	// WHEN the table is read from the template
	// THEN it has the keys, indexes and TTL of dynamo.Table, PITR, on-demand billing, and is retained.
	s := dynamo.Table
	var gsis []any
	for _, ix := range s.Indexes {
		gsis = append(gsis, obj{
			"IndexName": ix.Name,
			"KeySchema": []any{
				obj{"AttributeName": ix.PartitionKey, "KeyType": "HASH"},
				obj{"AttributeName": ix.SortKey, "KeyType": "RANGE"},
			},
			"Projection": obj{"ProjectionType": "ALL"},
		})
	}
	must(t, "table shape", func() {
		template.ResourceCountIs(jsii.String("AWS::DynamoDB::Table"), jsii.Number(1))
		template.HasResource(jsii.String("AWS::DynamoDB::Table"), obj{
			"DeletionPolicy":      "Retain",
			"UpdateReplacePolicy": "Retain",
			"Properties": obj{
				"KeySchema": []any{
					obj{"AttributeName": s.PartitionKey, "KeyType": "HASH"},
					obj{"AttributeName": s.SortKey, "KeyType": "RANGE"},
				},
				"BillingMode":                      "PAY_PER_REQUEST",
				"GlobalSecondaryIndexes":           assertions.Match_ArrayEquals(&gsis),
				"TimeToLiveSpecification":          obj{"AttributeName": s.TTLAttribute, "Enabled": true},
				"PointInTimeRecoverySpecification": obj{"PointInTimeRecoveryEnabled": true},
				"StreamSpecification":              obj{"StreamViewType": string(s.Stream)},
			},
		})
	})
}

func TestMediaBucket(t *testing.T) {
	// WHEN the bucket and its CDN are read from the template
	// THEN the bucket is encrypted, private, TLS-only, and served through CloudFront with OAC.
	must(t, "bucket encryption and public access block", func() {
		template.HasResource(jsii.String("AWS::S3::Bucket"), obj{
			"DeletionPolicy": "Retain",
			"Properties": obj{
				"BucketEncryption": obj{"ServerSideEncryptionConfiguration": arr(
					obj{"ServerSideEncryptionByDefault": obj{"SSEAlgorithm": "AES256"}},
				)},
				"PublicAccessBlockConfiguration": obj{
					"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
				},
			},
		})
	})
	must(t, "bucket policy denies plain HTTP", func() {
		template.HasResourceProperties(jsii.String("AWS::S3::BucketPolicy"), obj{
			"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(arr(assertions.Match_ObjectLike(&obj{
				"Effect":    "Deny",
				"Condition": obj{"Bool": obj{"aws:SecureTransport": "false"}},
			})))},
		})
	})
	must(t, "CloudFront reads the bucket through OAC", func() {
		template.ResourceCountIs(jsii.String("AWS::CloudFront::OriginAccessControl"), jsii.Number(1))
		template.HasResourceProperties(jsii.String("AWS::S3::BucketPolicy"), obj{
			"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(arr(assertions.Match_ObjectLike(&obj{
				"Effect":    "Allow",
				"Action":    "s3:GetObject",
				"Principal": obj{"Service": "cloudfront.amazonaws.com"},
			})))},
		})
		template.HasResourceProperties(jsii.String("AWS::CloudFront::Distribution"), obj{
			"DistributionConfig": obj{"DefaultCacheBehavior": obj{"ViewerProtocolPolicy": "redirect-to-https"}},
		})
	})
}

func TestRoutes(t *testing.T) {
	// GIVEN the route tables of every function
	var routes []httpapi.Route
	owner := map[string]string{}
	for _, f := range functions {
		routes = append(routes, f.Routes...)
		for _, r := range f.Routes {
			owner[r.Method+" "+r.Path] = f.Name
		}
	}
	// WHEN the routes are read from the stack and its nested stacks
	got := map[string]obj{} // route key → properties
	where := map[string]string{}
	for path, tmpl := range stackTemplates(t, stack) {
		for _, r := range resourcesOf(tmpl, "AWS::ApiGatewayV2::Route") {
			props := r["Properties"].(obj)
			key := props["RouteKey"].(string)
			if _, dup := got[key]; dup {
				t.Errorf("route %s twice", key)
			}
			got[key], where[key] = props, path
		}
	}

	// THEN there is one route per entry, a HEAD beside each GET, plus
	// $default for the fallback function
	gets := 0
	for _, r := range routes {
		if r.Method == http.MethodGet {
			gets++
		}
	}
	if len(got) != len(routes)+gets+1 {
		t.Errorf("%d routes, want %d (one per entry, a HEAD per GET and $default)", len(got), len(routes)+gets+1)
	}
	if def, ok := got["$default"]; !ok || def["AuthorizationType"] != "NONE" {
		t.Errorf("$default route: %v", def)
	}

	// AND no route matches OPTIONS: API Gateway answers a CORS preflight
	// itself only when no route does (an ANY route would send it to the
	// function, on a back-office path through the authorizer, which
	// refuses it)
	for key := range got {
		if method, _, _ := strings.Cut(key, " "); method == "ANY" || method == http.MethodOptions {
			t.Errorf("route %s matches OPTIONS preflights", key)
		}
	}

	// AND each entry's route key exists with the authorizer exactly on
	// the back office's routes (a token and the operator role required),
	// none on any other Bearer, Optional or public route, in its
	// function's nested stack, and each GET's HEAD has the GET's
	// authorization and integration
	paths, err := gatewayPaths(functions)
	if err != nil {
		t.Fatal(err)
	}
	operatorRoutes := 0
	for _, r := range routes {
		key := routeKey(paths, r)
		keys := []string{key}
		if r.Method == http.MethodGet {
			keys = append(keys, "HEAD "+paths[r.Path])
		}
		authType := "NONE"
		if r.Auth == httpapi.AuthBearer && r.Role.Need == httpapi.NeedOperator {
			authType = "CUSTOM"
			operatorRoutes++
		}
		if groups.AuthorizerInvoked(r) != (authType == "CUSTOM") {
			t.Errorf("%s %s: groups.AuthorizerInvoked is %v, which the cost benchmark counts, against the stack's %s", r.Method, r.Path, groups.AuthorizerInvoked(r), authType)
		}
		for _, key := range keys {
			props, ok := got[key]
			if !ok {
				t.Errorf("no route %s", key)
				continue
			}
			if props["AuthorizationType"] != authType || (authType == "CUSTOM") != (props["AuthorizerId"] != nil) {
				t.Errorf("%s: authorization %v (authorizer %v), want %s", key, props["AuthorizationType"], props["AuthorizerId"], authType)
			}
			if want := owner[r.Method+" "+r.Path] + "Routes"; !strings.HasSuffix(where[key], "/"+want) {
				t.Errorf("%s is in %s, want the nested stack %s", key, where[key], want)
			}
		}
		if head := got["HEAD "+paths[r.Path]]; r.Method == http.MethodGet && head != nil {
			if get := got[key]; get != nil && (fmt.Sprint(head["Target"]) != fmt.Sprint(get["Target"]) || fmt.Sprint(head["AuthorizerId"]) != fmt.Sprint(get["AuthorizerId"])) {
				t.Errorf("HEAD %s: target %v authorizer %v, want the GET's %v %v", paths[r.Path], head["Target"], head["AuthorizerId"], get["Target"], get["AuthorizerId"])
			}
		}
	}

	if operatorRoutes == 0 {
		t.Error("no operator route: the authorizer is bound by none")
	}

	// AND the spec's examples hold literally, whatever the tables say
	for key, authType := range map[string]string{
		"GET /health":            "NONE",
		"HEAD /health":           "NONE",
		"POST /v1/auth/login":    "NONE",
		"GET /v1/users/{userId}": "NONE",
		// Bearer: the function verifies the token and reads the caller
		"GET /v1/users/me":          "NONE",
		"HEAD /v1/users/me":         "NONE",
		"POST /v1/auth/logout":      "NONE",
		"PUT /v1/users/me/password": "NONE",
		"POST /v1/lines":            "NONE",
		// Optional: the function verifies a token it is sent
		"GET /v1/books/{id}":        "NONE",
		"HEAD /v1/books/{id}/lines": "NONE",
		// The back office: the authorizer refuses a forgery at the edge
		"GET /v1/admin/reports":             "CUSTOM",
		"HEAD /v1/admin/reports":            "CUSTOM",
		"GET /v1/admin/audit":               "CUSTOM",
		"PUT /v1/admin/users/{userId}/tier": "CUSTOM",
	} {
		if props := got[key]; props == nil || props["AuthorizationType"] != authType {
			t.Errorf("example %s: %v, want %s", key, props, authType)
		}
	}
}

// resourcesOf returns the resources of type typ in a template.
func resourcesOf(tmpl map[string]any, typ string) map[string]obj {
	out := map[string]obj{}
	for id, r := range tmpl["Resources"].(map[string]any) {
		if r.(obj)["Type"] == typ {
			out[id] = r.(obj)
		}
	}
	return out
}

func TestAuthorizer(t *testing.T) {
	// THEN the authorizer gives simple responses, is invoked on every
	// request (no identity source, no cache) and is the only one.
	must(t, "authorizer", func() {
		template.ResourceCountIs(jsii.String("AWS::ApiGatewayV2::Authorizer"), jsii.Number(1))
		template.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Authorizer"), obj{
			"AuthorizerType":                 "REQUEST",
			"EnableSimpleResponses":          true,
			"AuthorizerPayloadFormatVersion": "2.0",
			"AuthorizerResultTtlInSeconds":   0,
			"IdentitySource":                 assertions.Match_Absent(),
		})
	})
}

func TestAPI_CORS(t *testing.T) {
	must(t, "CORS preflight", func() {
		template.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Api"), obj{
			"ProtocolType": "HTTP",
			"CorsConfiguration": obj{
				"AllowOrigins":  arr("*"),
				"AllowHeaders":  assertions.Match_ArrayWith(arr("Authorization", "Content-Type", "Idempotency-Key")),
				"AllowMethods":  assertions.Match_ArrayWith(arr("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS")),
				"ExposeHeaders": assertions.Match_ArrayWith(arr("X-Request-Id", "X-RateLimit-Remaining", "Retry-After")),
			},
		})
	})
}

func TestFunctions(t *testing.T) {
	must(t, "one Lambda per function", func() {
		template.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(len(functions)))
	})
	keys := obj{"Ref": logicalID(t, "SigningKeys")}
	for _, f := range functions {
		// THEN each is a provided.al2023 arm64 bootstrap with its configuration by the config package's names
		env := obj{
			config.EnvJWTSecretARN: keys,
			config.EnvTableName:    assertions.Match_AnyValue(),
			// The access line's metrics are the metric filters' (their
			// namespace is in the filters): no function is told one.
			"METRICS_NAMESPACE": assertions.Match_Absent(),
		}
		// AND the media bucket only where its group reads it (users,
		// stores): it is a group's setting, not the core's
		for _, name := range []string{s3media.EnvBucket, s3media.EnvBaseURL} {
			env[name] = assertions.Match_Absent()
			if slices.Contains(f.Settings, name) {
				env[name] = assertions.Match_AnyValue()
			}
		}
		switch {
		case f.Authorizer:
			// The authorizer must start without the table.
			env[config.EnvTableName] = assertions.Match_Absent()
		case f.KeyRotation:
			// The rotation function is told the secret by each event.
			for k := range env {
				env[k] = assertions.Match_Absent()
			}
			env[config.EnvLogLevel] = "info"
		case f.Keyless:
			// Health and docs verify no token: they start without the keys.
			env[config.EnvJWTSecretARN] = assertions.Match_Absent()
		}
		must(t, f.Name, func() {
			template.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Description":   FunctionDescription(f.Name),
				"Runtime":       "provided.al2023",
				"Architectures": arr("arm64"),
				"Handler":       "bootstrap",
				"MemorySize":    functionMemoryMB,
				"LoggingConfig": obj{"LogGroup": assertions.Match_AnyValue()},
				"Environment":   obj{"Variables": env},
			})
		})
	}
	must(t, "no key in any function's configuration", func() {
		for id, fn := range *template.FindResources(jsii.String("AWS::Lambda::Function"), nil) {
			vars := (*fn)["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)
			for _, k := range []string{config.EnvJWTSecret, config.EnvJWTPreviousSecret, config.EnvJWTNextSecret} {
				if _, ok := vars[k]; ok {
					t.Errorf("%s: environment holds %s", id, k)
				}
			}
			if v := fmt.Sprint(vars); strings.Contains(v, "resolve:secretsmanager") {
				t.Errorf("%s: environment holds a secret's value: %s", id, v)
			}
		}
	})
	must(t, "log retention", func() {
		// One group per function, and the API's access log.
		template.ResourcePropertiesCountIs(jsii.String("AWS::Logs::LogGroup"), obj{"RetentionInDays": 30}, jsii.Number(len(functions)+1))
	})
}

func TestIAM_LeastPrivilege(t *testing.T) {
	// WHEN every identity policy of the stack is read
	policies := *template.FindResources(jsii.String("AWS::IAM::Policy"), nil)

	// THEN no statement grants a service wildcard, nor DynamoDB/S3/SQS actions on every resource
	for id, p := range policies {
		for _, st := range statements(*p) {
			actions, resources := strs(st["Action"]), strs(st["Resource"])
			for _, a := range actions {
				if a == "*" || a == "dynamodb:*" || a == "s3:*" || a == "sqs:*" {
					t.Errorf("%s grants %s", id, a)
				}
				// ListStreams (the relay's stream event source) names no
				// resource: IAM authorizes it on "*" only.
				if a != "dynamodb:ListStreams" && (strings.HasPrefix(a, "dynamodb:") || strings.HasPrefix(a, "s3:") || strings.HasPrefix(a, "sqs:")) && slices.Contains(resources, "*") {
					t.Errorf("%s grants %s on Resource *", id, a)
				}
			}
		}
	}
	// AND no role carries a managed policy (AWSLambdaBasicExecutionRole
	// allows logs on every group), but CodeDeploy's, whose own policy is
	// the documented one (nag.go)
	deployments := logicalID(t, "DeploymentsRole")
	for id, r := range *template.FindResources(jsii.String("AWS::IAM::Role"), nil) {
		mp, ok := (*r)["Properties"].(obj)["ManagedPolicyArns"]
		if !ok {
			continue
		}
		if id != deployments || !strings.Contains(fmt.Sprint(mp), "service-role/AWSCodeDeployRoleForLambdaLimited") || len(mp.([]any)) != 1 {
			t.Errorf("role %s has managed policies %v", id, mp)
		}
	}

	// AND the table's indexes are granted by their exact ARNs, to the
	// functions that read them only
	for _, f := range functions {
		var want []string
		if len(f.TableActions) > 0 {
			want = append(want, "table")
		}
		for _, ix := range f.Indexes {
			want = append(want, "table/index/"+ix)
		}
		if got := tableResources(t, f.Name); !slices.Equal(got, want) {
			t.Errorf("%s: table resources = %v, want %v", f.Name, got, want)
		}
	}
	for id, p := range policies {
		if strings.Contains(fmt.Sprint((*p)["Properties"]), "/index/*") {
			t.Errorf("%s grants every index (table/index/*)", id)
		}
	}

	// AND each function has exactly the DynamoDB and S3 actions its entry lists
	for _, f := range functions {
		got := dataActions(t, f.Name)
		want := append(append([]string{}, f.TableActions...), f.MediaActions...)
		if f.Relay {
			want = append(want, relayStreamActions...)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: DynamoDB/S3 actions = %v, want %v", f.Name, got, want)
		}
	}
	if !slices.Contains(dataActions(t, "users"), "s3:PutObject") {
		t.Error("users function cannot upload avatars (no s3:PutObject)")
	}
	if slices.Contains(dataActions(t, "auth"), "s3:PutObject") {
		t.Error("auth function may write media (s3:PutObject)")
	}
	if got := dataActions(t, "authorizer"); len(got) != 0 {
		t.Errorf("authorizer has data actions %v", got)
	}
	// AND s3:ListBucket, which lets a read of a missing presigned upload
	// answer 404 rather than 403, is granted on the bucket for the
	// uploads prefix alone, never on its objects
	bucket := logicalID(t, "MediaBucket")
	for _, f := range functions {
		lists := slices.Contains(f.MediaActions, "s3:ListBucket")
		var listings []obj
		for _, st := range roleStatements(t, f.Name) {
			if !slices.Contains(strs(st["Action"]), "s3:ListBucket") {
				continue
			}
			if fmt.Sprint(st["Sid"]) != "MediaUploadsListing" || len(strs(st["Action"])) != 1 {
				t.Errorf("%s: s3:ListBucket granted with %v in statement %v", f.Name, strs(st["Action"]), st["Sid"])
			}
			listings = append(listings, st)
		}
		if !lists {
			if len(listings) > 0 {
				t.Errorf("%s: granted s3:ListBucket it does not list", f.Name)
			}
			continue
		}
		if len(listings) != 1 {
			t.Fatalf("%s: %d s3:ListBucket statements", f.Name, len(listings))
		}
		st := listings[0]
		if got, want := fmt.Sprint(st["Resource"]), fmt.Sprint(obj{"Fn::GetAtt": []any{bucket, "Arn"}}); got != want {
			t.Errorf("%s: s3:ListBucket on %s, want the bucket %s", f.Name, got, want)
		}
		if got, want := fmt.Sprint(st["Condition"]), fmt.Sprint(obj{"StringLike": obj{"s3:prefix": images.UploadsPrefix + "*"}}); got != want {
			t.Errorf("%s: s3:ListBucket condition %s, want %s", f.Name, got, want)
		}
	}
	for _, name := range []string{"users", "stores"} {
		if !slices.Contains(dataActions(t, name), "s3:ListBucket") {
			t.Errorf("%s function cannot tell a missing upload (no s3:ListBucket)", name)
		}
	}
}

// tableResources returns the table resources the named function's
// DynamoDB statement names: "table", then "table/index/<name>" each.
func tableResources(t *testing.T, name string) []string {
	t.Helper()
	table := logicalID(t, "Table")
	var out []string
	for _, st := range roleStatements(t, name) {
		if fmt.Sprint(st["Sid"]) != "Table" {
			continue
		}
		resources, ok := st["Resource"].([]any)
		if !ok {
			resources = []any{st["Resource"]}
		}
		for _, r := range resources {
			switch v := r.(type) {
			case obj:
				if ga, ok := v["Fn::GetAtt"].([]any); ok && ga[0] == table && ga[1] == "Arn" {
					out = append(out, "table")
					continue
				}
				if join, ok := v["Fn::Join"].([]any); ok {
					parts := join[1].([]any)
					if ga, ok := parts[0].(obj)["Fn::GetAtt"].([]any); ok && ga[0] == table && len(parts) == 2 {
						out = append(out, "table"+fmt.Sprint(parts[1]))
						continue
					}
				}
				out = append(out, fmt.Sprint(v))
			default:
				out = append(out, fmt.Sprint(v))
			}
		}
	}
	return out
}

// dataActions returns the sorted DynamoDB and S3 actions of the named
// function's role policy.
func dataActions(t *testing.T, name string) []string {
	t.Helper()
	var actions []string
	for _, st := range roleStatements(t, name) {
		for _, a := range strs(st["Action"]) {
			if strings.HasPrefix(a, "dynamodb:") || strings.HasPrefix(a, "s3:") {
				actions = append(actions, a)
			}
		}
	}
	slices.Sort(actions)
	return actions
}

// function returns the logical ID and the resource of the named function,
// found through its description.
func function(t *testing.T, name string) (string, obj) {
	t.Helper()
	fns := *template.FindResources(jsii.String("AWS::Lambda::Function"), obj{
		"Properties": obj{"Description": FunctionDescription(name)},
	})
	if len(fns) != 1 {
		t.Fatalf("%d functions described %q", len(fns), FunctionDescription(name))
	}
	for id, fn := range fns {
		return id, *fn
	}
	panic("unreachable")
}

// aliasOf returns the logical ID of the named function's alias in tmpl.
func aliasOf(t *testing.T, tmpl assertions.Template, name string) string {
	t.Helper()
	var fnID string
	for id := range *tmpl.FindResources(jsii.String("AWS::Lambda::Function"), obj{"Properties": obj{"Description": FunctionDescription(name)}}) {
		fnID = id
	}
	aliases := *tmpl.FindResources(jsii.String("AWS::Lambda::Alias"), obj{"Properties": obj{"FunctionName": obj{"Ref": fnID}}})
	if len(aliases) != 1 {
		t.Fatalf("%s: %d aliases", name, len(aliases))
	}
	for id := range aliases {
		return id
	}
	panic("unreachable")
}

// roleStatements returns the statements of the named function's role
// policies.
func roleStatements(t *testing.T, name string) []obj {
	t.Helper()
	_, fn := function(t, name)
	roleID := fmt.Sprint(fn["Properties"].(obj)["Role"].(obj)["Fn::GetAtt"].([]any)[0])
	var out []obj
	for _, p := range *template.FindResources(jsii.String("AWS::IAM::Policy"), nil) {
		props := (*p)["Properties"].(obj)
		if slices.ContainsFunc(props["Roles"].([]any), func(r any) bool { return fmt.Sprint(r.(obj)["Ref"]) == roleID }) {
			out = append(out, statements(*p)...)
		}
	}
	return out
}

func statements(policy map[string]any) []obj {
	var out []obj
	for _, s := range policy["Properties"].(obj)["PolicyDocument"].(obj)["Statement"].([]any) {
		out = append(out, s.(obj))
	}
	return out
}

// strs flattens an Action or Resource value: a string, or a list whose
// non-string items (intrinsics such as Fn::GetAtt) are not wildcards.
func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func TestOutputs(t *testing.T) {
	for _, id := range []string{OutputAPIURL, OutputTableName, OutputBucketName, OutputMediaBaseURL, OutputAlarmTopic, OutputDashboard, OutputLogBucket} {
		must(t, "output "+id, func() { template.HasOutput(jsii.String(id), obj{"Value": assertions.Match_AnyValue()}) })
	}
	must(t, "media base URL is the CDN over HTTPS", func() {
		template.HasOutput(jsii.String(OutputMediaBaseURL), obj{"Value": obj{"Fn::Join": arr("", arr(
			"https://", obj{"Fn::GetAtt": arr(assertions.Match_AnyValue(), "DomainName")},
		))}})
	})
}

// API Gateway refuses sibling path variables with different names (409
// ConflictException at deploy; synthesis does not notice), so the stack
// renames them: under one parent, one name.
func TestRoutes_OneVariableNamePerLevel(t *testing.T) {
	// GIVEN the route keys the stack creates
	paths, err := gatewayPaths(functions)
	if err != nil {
		t.Fatal(err)
	}
	// THEN no two variables under the same parent have different names
	seen := map[string]string{}
	for _, gw := range paths {
		segs := strings.Split(strings.Trim(gw, "/"), "/")
		parent := ""
		for _, s := range segs {
			if strings.HasPrefix(s, "{") {
				if prev, ok := seen[parent]; ok && prev != s {
					t.Errorf("under %s: variables %s and %s", parent, prev, s)
				}
				seen[parent] = s
			}
			parent += "/" + s
		}
	}
	// AND the spec's pairs that differ are renamed onto one name
	if got := paths["/v1/users/{username}/lines"]; got != "/v1/users/{userId}/lines" && got != "/v1/users/{username}/lines" {
		t.Errorf("gateway path of /v1/users/{username}/lines = %q", got)
	}
	if paths["/v1/users/{username}/lines"][len("/v1/users/"):] != paths["/v1/users/{userId}"][len("/v1/users/"):]+"/lines" {
		t.Errorf("users paths disagree: %q vs %q", paths["/v1/users/{username}/lines"], paths["/v1/users/{userId}"])
	}

	// AND two routes that would become one gateway route are refused
	_, err = gatewayPaths([]groups.Function{{Name: "x", Routes: []httpapi.Route{
		{Method: "GET", Path: "/v1/a/{id}"}, {Method: "GET", Path: "/v1/a/{name}"},
	}}})
	if err == nil {
		t.Error("GET /v1/a/{id} and GET /v1/a/{name} were accepted as two routes")
	}
}

// logicalID is the CloudFormation logical ID of a top-level construct of
// the stack.
func logicalID(t *testing.T, id string) string {
	t.Helper()
	c := stack.Node().TryFindChild(jsii.String(id))
	if c == nil {
		t.Fatalf("the stack has no construct %s", id)
	}
	el, ok := c.Node().DefaultChild().(awscdk.CfnElement)
	if !ok {
		t.Fatalf("construct %s has no CloudFormation resource", id)
	}
	return *stack.GetLogicalId(el)
}

func TestQueues(t *testing.T) {
	// THEN every queue of queues.All exists with its dead-letter queue, and no other queue
	must(t, "queue count", func() {
		template.ResourceCountIs(jsii.String("AWS::SQS::Queue"), jsii.Number(2*len(queues.All)+1)) // and the relay's DLQ (TestRelay)
	})
	for _, n := range queues.All {
		q, dlq := logicalID(t, queueID(n)), logicalID(t, queueID(n.DLQ()))
		// AND the queue moves a message to its DLQ after MaxReceiveCount receipts, hides it for the visibility timeout, is encrypted
		must(t, string(n), func() {
			found := *template.FindResources(jsii.String("AWS::SQS::Queue"), obj{"Properties": obj{
				"VisibilityTimeout":    queues.VisibilityTimeout.Seconds(),
				"SqsManagedSseEnabled": true,
				"RedrivePolicy": obj{
					"deadLetterTargetArn": obj{"Fn::GetAtt": arr(dlq, "Arn")},
					"maxReceiveCount":     queues.MaxReceiveCount,
				},
			}})
			if _, ok := found[q]; !ok || len(found) != 1 {
				t.Errorf("queue %s (%s) with a redrive policy to %s: found %v", n, q, dlq, slices.Collect(maps.Keys(found)))
			}
		})
		// AND the DLQ keeps dead letters for DLQRetention, is encrypted, and is nobody's source of dead letters
		must(t, string(n.DLQ()), func() {
			found := *template.FindResources(jsii.String("AWS::SQS::Queue"), obj{"Properties": obj{
				"MessageRetentionPeriod": queues.DLQRetention.Seconds(),
				"SqsManagedSseEnabled":   true,
				"RedrivePolicy":          assertions.Match_Absent(),
			}})
			if _, ok := found[dlq]; !ok {
				t.Errorf("dead-letter queue %s (%s) not found among %v", n.DLQ(), dlq, slices.Collect(maps.Keys(found)))
			}
		})
		// AND both refuse requests without TLS
		for _, id := range []string{q, dlq} {
			must(t, id+" refuses plain HTTP", func() {
				template.HasResourceProperties(jsii.String("AWS::SQS::QueuePolicy"), obj{
					"Queues": arr(obj{"Ref": id}),
					"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(arr(assertions.Match_ObjectLike(&obj{
						"Effect":    "Deny",
						"Condition": obj{"Bool": obj{"aws:SecureTransport": "false"}},
					})))},
				})
			})
		}
	}
}

// Every worker function (a group's Worker, and the synthetic one while a
// queue has no group consuming it) gets the same wiring: checked per
// worker, so a worker group added later is held to it with no new test.
func TestWorker(t *testing.T) {
	// GIVEN the worker functions
	var workers []groups.Function
	mappings := 0
	for _, f := range functions {
		if f.Worker != nil {
			workers = append(workers, f)
		}
		if f.Worker != nil || f.Relay {
			mappings++ // the relay's source is the table's stream (TestRelay)
		}
	}
	if len(workers) == 0 {
		t.Fatal("no worker function: every queue is consumed, yet no group has a worker")
	}
	// THEN nothing else is an event source
	must(t, "event source mappings", func() {
		template.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(mappings))
	})
	consumers := map[queues.Name]string{}
	for _, w := range workers {
		t.Run(w.Name, func(t *testing.T) {
			if other, ok := consumers[w.Worker.Queue]; ok {
				t.Errorf("%s and %s both consume %s", other, w.Name, w.Worker.Queue)
			}
			consumers[w.Worker.Queue] = w.Name
			workerID, fn := function(t, w.Name)
			q, dlq := logicalID(t, queueID(w.Worker.Queue)), logicalID(t, queueID(w.Worker.Queue.DLQ()))

			// THEN SQS invokes it from its queue in batches of its size, with partial batch responses
			must(t, "event source mapping", func() {
				found := *template.FindResources(jsii.String("AWS::Lambda::EventSourceMapping"), obj{"Properties": obj{
					"EventSourceArn":        obj{"Fn::GetAtt": arr(q, "Arn")},
					"BatchSize":             w.Worker.BatchSize,
					"FunctionResponseTypes": arr("ReportBatchItemFailures"),
				}})
				if len(found) != 1 {
					t.Fatalf("%d event source mappings of %s", len(found), w.Worker.Queue)
				}
				// Through the alias, so the version CodeDeploy shifted to consumes.
				alias := aliasOf(t, template, w.Name)
				for _, m := range found {
					name := fmt.Sprint((*m)["Properties"].(obj)["FunctionName"])
					if !strings.Contains(name, alias) || !strings.Contains(name, ":"+AliasName) {
						t.Errorf("event source mapping invokes %s, want the worker's %s alias", name, AliasName)
					}
				}
			})

			// AND its queue sends a message received MaxReceiveCount times to the queue's DLQ
			must(t, "redrive", func() {
				found := *template.FindResources(jsii.String("AWS::SQS::Queue"), obj{"Properties": obj{
					"RedrivePolicy": obj{
						"deadLetterTargetArn": obj{"Fn::GetAtt": arr(dlq, "Arn")},
						"maxReceiveCount":     queues.MaxReceiveCount,
					},
				}})
				if _, ok := found[q]; !ok {
					t.Errorf("queue %s (%s) has no redrive policy to %s after %d receipts", w.Worker.Queue, q, dlq, queues.MaxReceiveCount)
				}
			})

			// AND it gives up before its messages become visible again
			if timeout, _ := fn["Properties"].(obj)["Timeout"].(float64); timeout <= 0 || timeout >= queues.VisibilityTimeout.Seconds() {
				t.Errorf("worker timeout = %v s, want below the visibility timeout of %v", timeout, queues.VisibilityTimeout)
			}

			// AND API Gateway neither integrates nor may invoke it (its
			// consume grants: TestQueues_OnlyTheirSendersAndConsumers)
			for _, typ := range []string{"AWS::ApiGatewayV2::Integration", "AWS::Lambda::Permission"} {
				for id, r := range *template.FindResources(jsii.String(typ), nil) {
					if strings.Contains(fmt.Sprint((*r)["Properties"]), workerID) {
						t.Errorf("%s %s refers to the worker function: %v", typ, id, (*r)["Properties"])
					}
				}
			}
		})
	}
}

// The synthetic worker takes a queue no group consumes, and none once
// every queue has its worker group.
func TestWithSynthetic(t *testing.T) {
	if fs := withSynthetic(nil); len(fs) != 2 || fs[1].Worker.Queue != queues.All[0] {
		t.Errorf("no group worker: %+v, want the sender and a worker on %s", fs, queues.All[0])
	}
	var all []groups.Function
	for i, n := range queues.All {
		all = append(all, groups.Function{Name: fmt.Sprint("w", i), Worker: &api.Worker{Queue: n, BatchSize: 1}})
	}
	if fs := withSynthetic(all[1:]); fs[len(fs)-1].Worker.Queue != queues.All[0] {
		t.Errorf("the synthetic worker consumes %s, want %s, which no group consumes", fs[len(fs)-1].Worker.Queue, queues.All[0])
	}
	if fs := withSynthetic(all); len(fs) != len(all)+1 {
		t.Errorf("every queue consumed: %d functions, want the groups' and the sender", len(fs))
	}
	if testWorker.Worker.Queue != "" {
		t.Errorf("withSynthetic changed the template: %+v", testWorker.Worker)
	}
}

func TestQueues_OnlyTheirSendersAndConsumers(t *testing.T) {
	consumeActions := []string{"sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ReceiveMessage"}
	for _, f := range functions {
		// THEN a function may send to exactly the queues it Sends to and consume exactly its worker's queue
		var want []string
		for _, n := range f.Sends {
			want = append(want, "sqs:SendMessage on "+logicalID(t, queueID(n)))
		}
		if f.Worker != nil {
			for _, a := range consumeActions {
				want = append(want, a+" on "+logicalID(t, queueID(f.Worker.Queue)))
			}
		}
		if f.Relay {
			// The stream event source's on-failure destination.
			for _, a := range []string{"sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"} {
				want = append(want, a+" on "+logicalID(t, "RelayDlqQueue"))
			}
		}
		slices.Sort(want)
		if got := queueGrants(t, f.Name); !slices.Equal(got, want) {
			t.Errorf("%s: SQS grants = %v, want %v", f.Name, got, want)
		}

		// AND it gets the URL variable of exactly the queues it sends to
		_, fn := function(t, f.Name)
		got := obj{}
		for k, v := range fn["Properties"].(obj)["Environment"].(obj)["Variables"].(obj) {
			if strings.HasPrefix(k, "QUEUE_URL_") {
				got[k] = v
			}
		}
		wantEnv := obj{}
		for _, n := range f.Sends {
			wantEnv[n.URLEnv()] = obj{"Ref": logicalID(t, queueID(n))}
		}
		if fmt.Sprint(got) != fmt.Sprint(wantEnv) {
			t.Errorf("%s: queue variables = %v, want %v", f.Name, got, wantEnv)
		}
	}
}

// queueGrants returns the named function's SQS grants, sorted, as
// "action on <queue logical ID>".
func queueGrants(t *testing.T, name string) []string {
	t.Helper()
	var out []string
	for _, st := range roleStatements(t, name) {
		resources, ok := st["Resource"].([]any)
		if !ok {
			resources = []any{st["Resource"]}
		}
		actions, ok := st["Action"].([]any)
		if !ok {
			actions = []any{st["Action"]}
		}
		for _, a := range actions {
			if !strings.HasPrefix(fmt.Sprint(a), "sqs:") {
				continue
			}
			for _, r := range resources {
				label := fmt.Sprint(r) // "*" or an intrinsic other than a queue's ARN
				if m, ok := r.(obj); ok {
					if ga, ok := m["Fn::GetAtt"].([]any); ok && len(ga) == 2 && ga[1] == "Arn" {
						label = fmt.Sprint(ga[0])
					}
				}
				out = append(out, fmt.Sprint(a)+" on "+label)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestStoreDomains(t *testing.T) {
	// WHEN the custom domains' distribution is read from the template
	// THEN it is one multi-tenant distribution serving the storefront over HTTPS, caching nothing across viewers
	must(t, "a tenant-only distribution", func() {
		template.HasResourceProperties(jsii.String("AWS::CloudFront::Distribution"), obj{
			"DistributionConfig": assertions.Match_ObjectLike(&obj{
				"ConnectionMode": "tenant-only",
				"Enabled":        true,
				"Origins": arr(assertions.Match_ObjectLike(&obj{
					"DomainName":         testStorefront,
					"CustomOriginConfig": assertions.Match_ObjectLike(&obj{"OriginProtocolPolicy": "https-only"}),
				})),
				"DefaultCacheBehavior": assertions.Match_ObjectLike(&obj{
					"ViewerProtocolPolicy": "redirect-to-https",
					"CachePolicyId":        "4135ea2d-6df8-44a3-9df3-4b5a84be39ad", // CachingDisabled
				}),
			}),
		})
	})
	// AND no tenant is in the template: the stores function creates one per verified domain
	must(t, "no tenant in the stack", func() {
		template.ResourceCountIs(jsii.String("AWS::CloudFront::DistributionTenant"), jsii.Number(0))
	})
	dist := *template.FindResources(jsii.String("AWS::CloudFront::Distribution"), obj{
		"Properties": obj{"DistributionConfig": obj{"ConnectionMode": "tenant-only"}},
	})
	if len(dist) != 1 {
		t.Fatalf("%d multi-tenant distributions", len(dist))
	}
	var distID string
	for id := range dist {
		distID = id
	}
	// AND the functions whose group reads it (stores) are told its id, and no other
	told := 0
	for _, f := range functions {
		_, fn := function(t, f.Name)
		v, set := fn["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)[storesapi.EnvDistributionID]
		switch {
		case slices.Contains(f.Settings, storesapi.EnvDistributionID):
			told++
			if fmt.Sprint(v) != fmt.Sprint(obj{"Ref": distID}) {
				t.Errorf("%s: %s = %v, want the distribution's id", f.Name, storesapi.EnvDistributionID, v)
			}
		case set:
			t.Errorf("%s: %s is set, but its group does not read it", f.Name, storesapi.EnvDistributionID)
		}
	}
	if told == 0 {
		t.Errorf("no function is told %s", storesapi.EnvDistributionID)
	}
	// AND only the functions whose group lists CDN actions may touch tenants: exactly those actions, on that distribution and its tenants
	sawCDN := false
	for _, f := range functions {
		var tenants, certs obj
		for _, st := range roleStatements(t, f.Name) {
			switch st["Sid"] {
			case "StoreDomainTenants":
				tenants = st
			case "StoreDomainCertificates":
				certs = st
			}
		}
		if len(f.CDNActions) == 0 {
			if tenants != nil || certs != nil {
				t.Errorf("%s may touch CDN tenants without listing CDN actions", f.Name)
			}
			continue
		}
		sawCDN = true
		if tenants == nil || certs == nil {
			t.Errorf("%s lists CDN actions but is not granted them", f.Name)
			continue
		}
		got := strs(tenants["Action"])
		slices.Sort(got)
		want := slices.Sorted(slices.Values(f.CDNActions))
		if !slices.Equal(got, want) {
			t.Errorf("%s: CloudFront actions %v, want %v", f.Name, got, want)
		}
		res := fmt.Sprint(tenants["Resource"])
		if !strings.Contains(res, ":distribution/") || !strings.Contains(res, distID) || !strings.Contains(res, ":distribution-tenant/*") {
			t.Errorf("%s: CloudFront resources %s, want the distribution and its tenants", f.Name, res)
		}
		if got := strs(certs["Action"]); !slices.Equal(got, []string{"acm:DescribeCertificate", "acm:RequestCertificate"}) {
			t.Errorf("%s: ACM actions %v", f.Name, got)
		}
	}
	if !sawCDN {
		t.Error("no function may manage custom domains")
	}
	must(t, "outputs", func() {
		template.HasOutput(jsii.String(OutputStoreDist), obj{"Value": obj{"Ref": distID}})
		template.HasOutput(jsii.String(OutputStoreDistDNS), obj{"Value": assertions.Match_AnyValue()})
	})
}

func TestMediaBucket_Uploads(t *testing.T) {
	// WHEN the bucket is read from the template
	// THEN presigned uploads that are never attached expire, and browsers may PUT them
	must(t, "lifecycle and CORS", func() {
		template.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj{
			"LifecycleConfiguration": obj{"Rules": assertions.Match_ArrayWith(arr(assertions.Match_ObjectLike(&obj{
				"Prefix": images.UploadsPrefix, "ExpirationInDays": 1, "Status": "Enabled",
			})))},
			"CorsConfiguration": obj{"CorsRules": arr(assertions.Match_ObjectLike(&obj{
				"AllowedMethods": arr("PUT"), "AllowedOrigins": arr("*"),
			}))},
		})
	})
}

func TestMediaBucket_ImportFiles(t *testing.T) {
	// WHEN the bucket and its policy are read from the template
	// THEN import files (cost prices) expire, and CloudFront may not read them
	must(t, "import files expire", func() {
		template.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj{
			"LifecycleConfiguration": obj{"Rules": assertions.Match_ArrayWith(arr(assertions.Match_ObjectLike(&obj{
				"Prefix": importjob.FilePrefix, "ExpirationInDays": importjob.FileExpiryDays, "Status": "Enabled",
			})))},
		})
	})
	must(t, "CloudFront is denied the import files", func() {
		template.HasResourceProperties(jsii.String("AWS::S3::BucketPolicy"), obj{
			"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(arr(assertions.Match_ObjectLike(&obj{
				"Effect":    "Deny",
				"Action":    "s3:GetObject",
				"Principal": obj{"Service": "cloudfront.amazonaws.com"},
				"Resource":  obj{"Fn::Join": arr("", assertions.Match_ArrayWith(arr("/"+importjob.FilePrefix+"*")))},
			})))},
		})
	})
}
