package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
)

// template is the stack synthesized once for the package: synthesis costs
// seconds and half a gigabyte, every test reads the same result.
var template assertions.Template

// TestMain is the shared GIVEN: the stack built from the repository's
// route tables and schema, over dummy bootstraps so that no real build is
// needed.
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
	for _, f := range app.Functions() {
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
	stack := NewBackendStack(a, "TestBackend", &BackendStackProps{BuildDir: buildDir})
	template = assertions.Template_FromStack(stack, nil)
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
	for _, f := range app.Functions() {
		routes = append(routes, f.Routes...)
	}

	// THEN there is one route per entry, plus $default for the fallback function
	must(t, "route count", func() {
		template.ResourceCountIs(jsii.String("AWS::ApiGatewayV2::Route"), jsii.Number(len(routes)+1))
	})
	must(t, "$default route", func() {
		template.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Route"), obj{"RouteKey": "$default", "AuthorizationType": "NONE"})
	})

	// AND each entry's route key exists with the authorizer exactly where a token is read
	paths, err := gatewayPaths(app.Functions())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routes {
		key := routeKey(paths, r)
		authType := "NONE"
		if r.Auth != httpapi.AuthNone {
			authType = "CUSTOM"
		}
		must(t, key, func() {
			template.ResourcePropertiesCountIs(jsii.String("AWS::ApiGatewayV2::Route"), obj{
				"RouteKey": key, "AuthorizationType": authType,
			}, jsii.Number(1))
		})
	}

	// AND the spec's examples hold literally, whatever the tables say
	for key, authType := range map[string]string{
		"GET /v1/users/me":          "CUSTOM",
		"GET /v1/users/{userId}":    "NONE",
		"GET /health":               "NONE",
		"POST /v1/auth/login":       "NONE",
		"POST /v1/auth/logout":      "CUSTOM",
		"PUT /v1/users/me/password": "CUSTOM",
	} {
		must(t, "example "+key, func() {
			want := obj{"RouteKey": key, "AuthorizationType": authType}
			if authType == "CUSTOM" {
				want["AuthorizerId"] = assertions.Match_AnyValue()
			}
			template.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Route"), want)
		})
	}
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
				"AllowHeaders":  assertions.Match_ArrayWith(arr("Authorization", "Content-Type")),
				"AllowMethods":  assertions.Match_ArrayWith(arr("GET", "POST", "PUT", "DELETE", "OPTIONS")),
				"ExposeHeaders": assertions.Match_ArrayWith(arr("X-Request-Id", "X-RateLimit-Remaining", "Retry-After")),
			},
		})
	})
}

func TestFunctions(t *testing.T) {
	functions := app.Functions()
	must(t, "one Lambda per function", func() {
		template.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(len(functions)))
	})
	for _, f := range functions {
		// THEN each is a provided.al2023 arm64 bootstrap with its configuration by the config package's names
		env := obj{
			config.EnvJWTSecret:    assertions.Match_ObjectLike(&obj{"Fn::Join": assertions.Match_AnyValue()}),
			config.EnvTableName:    assertions.Match_AnyValue(),
			config.EnvMediaBucket:  assertions.Match_AnyValue(),
			config.EnvMediaBaseURL: assertions.Match_AnyValue(),
		}
		if f.Authorizer {
			// The authorizer must start without the table and bucket.
			env[config.EnvTableName] = assertions.Match_Absent()
			env[config.EnvMediaBucket] = assertions.Match_Absent()
			env[config.EnvMediaBaseURL] = assertions.Match_Absent()
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
	must(t, "JWT_SECRET comes from Secrets Manager", func() {
		for id, fn := range *template.FindResources(jsii.String("AWS::Lambda::Function"), nil) {
			v := fmt.Sprint((*fn)["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)[config.EnvJWTSecret])
			if !strings.Contains(v, "{{resolve:secretsmanager:") {
				t.Errorf("%s: JWT_SECRET = %s, want a Secrets Manager dynamic reference", id, v)
			}
		}
	})
	must(t, "log retention", func() {
		template.ResourcePropertiesCountIs(jsii.String("AWS::Logs::LogGroup"), obj{"RetentionInDays": 30}, jsii.Number(len(functions)))
	})
}

func TestIAM_LeastPrivilege(t *testing.T) {
	// WHEN every identity policy of the stack is read
	policies := *template.FindResources(jsii.String("AWS::IAM::Policy"), nil)

	// THEN no statement grants a service wildcard, nor DynamoDB/S3 actions on every resource
	for id, p := range policies {
		for _, st := range statements(*p) {
			actions, resources := strs(st["Action"]), strs(st["Resource"])
			for _, a := range actions {
				if a == "*" || a == "dynamodb:*" || a == "s3:*" {
					t.Errorf("%s grants %s", id, a)
				}
				if (strings.HasPrefix(a, "dynamodb:") || strings.HasPrefix(a, "s3:")) && slices.Contains(resources, "*") {
					t.Errorf("%s grants %s on Resource *", id, a)
				}
			}
		}
	}
	// AND no role carries a managed policy (AWSLambdaBasicExecutionRole allows logs on every group)
	for id, r := range *template.FindResources(jsii.String("AWS::IAM::Role"), nil) {
		if mp, ok := (*r)["Properties"].(obj)["ManagedPolicyArns"]; ok {
			t.Errorf("role %s has managed policies %v", id, mp)
		}
	}

	// AND each function has exactly the DynamoDB and S3 actions its entry lists
	for _, f := range app.Functions() {
		got := dataActions(t, f.Name)
		want := append(append([]string{}, f.TableActions...), f.MediaActions...)
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
}

// dataActions returns the sorted DynamoDB and S3 actions of the named
// function's role policy, found through its description and role.
func dataActions(t *testing.T, name string) []string {
	t.Helper()
	fns := *template.FindResources(jsii.String("AWS::Lambda::Function"), obj{
		"Properties": obj{"Description": FunctionDescription(name)},
	})
	if len(fns) != 1 {
		t.Fatalf("%d functions described %q", len(fns), FunctionDescription(name))
	}
	var roleID string
	for _, fn := range fns {
		roleID = fmt.Sprint((*fn)["Properties"].(obj)["Role"].(obj)["Fn::GetAtt"].([]any)[0])
	}
	var actions []string
	for _, p := range *template.FindResources(jsii.String("AWS::IAM::Policy"), nil) {
		props := (*p)["Properties"].(obj)
		if !slices.ContainsFunc(props["Roles"].([]any), func(r any) bool { return fmt.Sprint(r.(obj)["Ref"]) == roleID }) {
			continue
		}
		for _, st := range statements(*p) {
			for _, a := range strs(st["Action"]) {
				if strings.HasPrefix(a, "dynamodb:") || strings.HasPrefix(a, "s3:") {
					actions = append(actions, a)
				}
			}
		}
	}
	slices.Sort(actions)
	return actions
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
	for _, id := range []string{OutputAPIURL, OutputTableName, OutputBucketName, OutputMediaBaseURL} {
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
	paths, err := gatewayPaths(app.Functions())
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
	_, err = gatewayPaths([]app.Function{{Name: "x", Routes: []httpapi.Route{
		{Method: "GET", Path: "/v1/a/{id}"}, {Method: "GET", Path: "/v1/a/{name}"},
	}}})
	if err == nil {
		t.Error("GET /v1/a/{id} and GET /v1/a/{name} were accepted as two routes")
	}
}
