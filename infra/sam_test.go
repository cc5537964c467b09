package main

import (
	"fmt"
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/runinfo"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/s3media"
)

// samTemplateOf is the SAM template of the stack synthesized for SAM.
func samTemplateOf(t *testing.T) map[string]any {
	t.Helper()
	return samTemplateFor(t, samStack)
}

// samTemplateFor is samTemplate of the synthesis of s.
func samTemplateFor(t *testing.T, s awscdk.Stack) map[string]any {
	t.Helper()
	st, err := samTemplate(assembly.GetStackByName(s.StackName()).Template().(map[string]any))
	if err != nil {
		t.Fatalf("%s: %v", *s.StackName(), err)
	}
	return st
}

// What SAM CLI needs to map a route to a function: every route's target
// is an integration of the template whose IntegrationUri is a function's
// ARN, that function has its code path (CDK's asset metadata), and the
// authorizer names a function the same way; nothing refers to an alias.
func TestSAM_EveryRouteResolvesToAFunctionWithItsCode(t *testing.T) {
	st := samTemplateOf(t)
	resources := st["Resources"].(map[string]any)
	// (nor the alarms and the dashboard, which the deployed stack nests:
	// SAM's template has no nested stack)
	for _, typ := range append(slices.Clone(samDropped), "AWS::CloudFormation::Stack", "AWS::CloudWatch::Alarm", "AWS::CloudWatch::Dashboard") {
		if n := len(ofType(resources, typ)); n > 0 {
			t.Errorf("%d %s in the SAM template", n, typ)
		}
	}
	fns := ofType(resources, "AWS::Lambda::Function")
	byDescription := map[string]string{}
	for id, fn := range fns {
		byDescription[fmt.Sprint(fn["Properties"].(map[string]any)["Description"])] = id
		meta, _ := fn["Metadata"].(map[string]any)
		if meta["aws:asset:path"] == nil || meta["aws:asset:property"] != "Code" {
			t.Errorf("function %s has no code path for SAM: metadata %v", id, meta)
		}
	}
	// functionOf resolves an ARN expression to the function it names.
	functionOf := func(v any) string {
		s := fmt.Sprint(v)
		for id := range fns {
			if strings.Contains(s, "Fn::GetAtt:["+id+" Arn]") {
				return id
			}
		}
		return ""
	}
	integrations := ofType(resources, "AWS::ApiGatewayV2::Integration")
	owner := map[string]string{} // gateway route key → function name
	keys, err := gatewayRoutes(groups.Functions())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range keys {
		owner[r.Key()] = r.Function
	}
	routes := ofType(resources, "AWS::ApiGatewayV2::Route")
	if len(routes) != len(keys)+1 {
		t.Errorf("%d routes in the SAM template, want %d and $default", len(routes), len(keys))
	}
	for id, r := range routes {
		p := r["Properties"].(map[string]any)
		key := fmt.Sprint(p["RouteKey"])
		target := fmt.Sprint(p["Target"])
		var fn string
		for iid, in := range integrations {
			if strings.Contains(target, "Ref:"+iid+"]") {
				fn = functionOf(in["Properties"].(map[string]any)["IntegrationUri"])
			}
		}
		if fn == "" {
			t.Errorf("route %s (%s): target %s resolves to no function", key, id, target)
			continue
		}
		want := owner[key]
		if key == "$default" {
			want = "health"
		}
		if byDescription[FunctionDescription(want)] != fn {
			t.Errorf("route %s resolves to %s, want the %s function", key, fn, want)
		}
	}
	for id, a := range ofType(resources, "AWS::ApiGatewayV2::Authorizer") {
		if fn := functionOf(a["Properties"].(map[string]any)["AuthorizerUri"]); fn != byDescription[FunctionDescription("authorizer")] {
			t.Errorf("authorizer %s resolves to %q", id, fn)
		}
	}
	if s := fmt.Sprint(st); strings.Contains(s, ":"+AliasName+"]") || strings.Contains(s, "Alias") {
		for id, r := range resources {
			if strings.Contains(fmt.Sprint(r), "Alias") {
				t.Errorf("%s still names an alias: %v", id, r)
			}
		}
	}
}

// With the roles and log groups dropped, each function still has the
// Role CloudFormation requires (samRoleARN) and the log format and levels
// it is deployed with, without the log group; the stage writes no access
// log; and nothing names a role or a log group
// (TestTemplates_ReferencesResolveWithoutCycles checks every reference).
func TestSAM_FunctionsKeepARoleAndTheirLogFormat(t *testing.T) {
	st := samTemplateOf(t)
	synth := assembly.GetStackByName(samStack.StackName()).Template().(map[string]any)["Resources"].(map[string]any)
	fns := ofType(st["Resources"].(map[string]any), "AWS::Lambda::Function")
	if len(fns) == 0 {
		t.Fatal("no function")
	}
	for id, fn := range fns {
		p := fn["Properties"].(map[string]any)
		if p["Role"] != samRoleARN {
			t.Errorf("%s: Role %v, want %s", id, p["Role"], samRoleARN)
		}
		want := maps.Clone(synth[id].(map[string]any)["Properties"].(map[string]any)["LoggingConfig"].(map[string]any))
		delete(want, "LogGroup")
		if want["LogFormat"] != "JSON" || fmt.Sprint(p["LoggingConfig"]) != fmt.Sprint(want) {
			t.Errorf("%s: LoggingConfig %v, want %v", id, p["LoggingConfig"], want)
		}
	}
	for id, stage := range ofType(st["Resources"].(map[string]any), "AWS::ApiGatewayV2::Stage") {
		if a, ok := stage["Properties"].(map[string]any)["AccessLogSettings"]; ok {
			t.Errorf("stage %s: AccessLogSettings %v", id, a)
		}
	}
	for id, r := range st["Resources"].(map[string]any) {
		for _, target := range references(r) {
			named, _ := synth[target].(map[string]any)
			if typ := named["Type"]; typ == "AWS::IAM::Role" || typ == "AWS::Logs::LogGroup" {
				t.Errorf("%s names %s (%s)", id, target, typ)
			}
		}
	}
}

// The env-vars file sets only variables the functions read (the
// configuration's, the groups', the SDK's endpoints and checksum
// settings), each on a function that declares it, pointing at the local
// run's stand-ins as a container reaches them.
func TestSAM_EnvVars(t *testing.T) {
	st := samTemplateOf(t)
	info := runinfo.Info{
		DynamoDB: "http://127.0.0.1:43001", S3: "http://127.0.0.1:43002", SQS: "http://127.0.0.1:43003", CloudFront: "http://127.0.0.1:43004",
		Table: "bookplatform-local", MediaBucket: "bookplatform-media-local", MediaBaseURL: "http://127.0.0.1:8080/media",
		DistributionID: "E1LOCALSTORES", JWTSecret: "local-development-jwt-secret-not-for-production",
	}
	urls := map[queues.Name]string{}
	for _, n := range queues.All {
		urls[n] = "http://127.0.0.1:43003/000000000000/" + string(n)
	}
	env, err := samEnvVars(st, info, urls)
	if err != nil {
		t.Fatal(err)
	}
	read := append(groups.Names(), samEndpointVars...)
	fns := ofType(st["Resources"].(map[string]any), "AWS::Lambda::Function")
	if len(env) == 0 {
		t.Fatal("empty env-vars file")
	}
	for id, vars := range env {
		declared := fns[id]["Properties"].(map[string]any)["Environment"].(map[string]any)["Variables"].(map[string]any)
		for name, v := range vars {
			if !slices.Contains(read, name) {
				t.Errorf("%s: %s is no variable the functions read", id, name)
			}
			if _, ok := declared[name]; !ok {
				t.Errorf("%s: %s is not declared in the template (SAM would drop it)", id, name)
			}
			// MEDIA_BASE_URL is the public prefix clients (the browser)
			// fetch media from: make run's /media on the host.
			if strings.Contains(v, "127.0.0.1") && name != s3media.EnvBaseURL {
				t.Errorf("%s: %s = %s: a container's loopback is its own", id, name, v)
			}
		}
	}
	users := env[functionIDIn(t, fns, "users")]
	for name, want := range map[string]string{
		config.EnvTableName: "bookplatform-local", "AWS_ENDPOINT_URL_DYNAMODB": "http://host.docker.internal:43001",
		config.EnvJWTSecret: info.JWTSecret, s3media.EnvBucket: info.MediaBucket,
	} {
		if users[name] != want {
			t.Errorf("users: %s = %q, want %q", name, users[name], want)
		}
	}
	// The custom domains are the stores group's setting alone.
	if v, ok := users[storesapi.EnvDistributionID]; ok {
		t.Errorf("users: %s = %q, a setting users does not read", storesapi.EnvDistributionID, v)
	}
	if got := env[functionIDIn(t, fns, "stores")][storesapi.EnvDistributionID]; got != "E1LOCALSTORES" {
		t.Errorf("stores: %s = %q, want E1LOCALSTORES", storesapi.EnvDistributionID, got)
	}
	if _, ok := users[config.EnvJWTSecretARN]; ok {
		t.Error("users is told a secret's ARN locally")
	}
	// AND a function that needs a stand-in the run does not report fails
	// the file, rather than pointing it nowhere
	info.CloudFront = ""
	if _, err := samEnvVars(st, info, urls); err == nil {
		t.Error("a missing CloudFront stand-in was accepted")
	}
}

func functionIDIn(t *testing.T, fns map[string]map[string]any, name string) string {
	t.Helper()
	for id, fn := range fns {
		if fn["Properties"].(map[string]any)["Description"] == FunctionDescription(name) {
			return id
		}
	}
	t.Fatalf("no function %s", name)
	return ""
}

// On a template of its own: the alias reference becomes the function's
// ARN, the alias goes with whatever depended on it only, and an app
// function declares the variables the env-vars file sets, the custom
// domains' distribution included when the stack made none.
func TestSAMTemplate_Rewrite(t *testing.T) {
	tmpl := map[string]any{"Resources": map[string]any{
		"Fn": map[string]any{"Type": "AWS::Lambda::Function", "Properties": map[string]any{
			"Description": FunctionDescription("stores"),
			"Environment": map[string]any{"Variables": map[string]any{config.EnvTableName: "t", config.EnvJWTSecretARN: map[string]any{"Ref": "Keys"}}},
		}},
		"Other": map[string]any{"Type": "AWS::Lambda::Function", "Properties": map[string]any{
			"Description": FunctionDescription("users"),
			"Environment": map[string]any{"Variables": map[string]any{config.EnvTableName: "t"}},
		}},
		"FnAlias":   map[string]any{"Type": "AWS::Lambda::Alias", "Properties": map[string]any{"FunctionName": map[string]any{"Ref": "Fn"}}},
		"FnVersion": map[string]any{"Type": "AWS::Lambda::Version", "Properties": map[string]any{"FunctionName": map[string]any{"Ref": "Fn"}}},
		"Integration": map[string]any{"Type": "AWS::ApiGatewayV2::Integration", "DependsOn": []any{"FnAlias", "Fn"},
			"Properties": map[string]any{"IntegrationUri": map[string]any{"Ref": "FnAlias"}}},
		"FnRole": map[string]any{"Type": "AWS::IAM::Role"},
		"FnLogs": map[string]any{"Type": "AWS::Logs::LogGroup"},
		"Logged": map[string]any{"Type": "AWS::Lambda::Function", "DependsOn": "FnRole", "Properties": map[string]any{
			"Role":          map[string]any{"Fn::GetAtt": []any{"FnRole", "Arn"}},
			"LoggingConfig": map[string]any{"LogFormat": "JSON", "LogGroup": map[string]any{"Ref": "FnLogs"}},
		}},
		"Unlogged": map[string]any{"Type": "AWS::Lambda::Function", "Properties": map[string]any{
			"Role":          map[string]any{"Fn::GetAtt": []any{"FnRole", "Arn"}},
			"LoggingConfig": map[string]any{"LogGroup": map[string]any{"Ref": "FnLogs"}},
		}},
		"AccessLogs": map[string]any{"Type": "AWS::Logs::LogGroup"},
		"Stage": map[string]any{"Type": "AWS::ApiGatewayV2::Stage", "Properties": map[string]any{
			"StageName":         "$default",
			"AccessLogSettings": map[string]any{"DestinationArn": map[string]any{"Fn::GetAtt": []any{"AccessLogs", "Arn"}}, "Format": "{}"},
		}},
	}}
	st, err := samTemplate(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	r := st["Resources"].(map[string]any)
	if _, ok := r["FnAlias"]; ok || r["FnVersion"] != nil {
		t.Errorf("alias or version kept: %v", r)
	}
	in := r["Integration"].(map[string]any)
	if fmt.Sprint(in["Properties"]) != fmt.Sprint(map[string]any{"IntegrationUri": map[string]any{"Fn::GetAtt": []any{"Fn", "Arn"}}}) ||
		fmt.Sprint(in["DependsOn"]) != "[Fn]" {
		t.Errorf("integration %v", in)
	}
	vars := r["Fn"].(map[string]any)["Properties"].(map[string]any)["Environment"].(map[string]any)["Variables"].(map[string]any)
	for _, name := range append([]string{config.EnvJWTSecret, storesapi.EnvDistributionID}, samEndpointVars...) {
		if vars[name] != samPlaceholder {
			t.Errorf("%s = %v, want declared", name, vars[name])
		}
	}
	// The distribution's id only where a group reads it.
	other := r["Other"].(map[string]any)["Properties"].(map[string]any)["Environment"].(map[string]any)["Variables"].(map[string]any)
	if _, ok := other[storesapi.EnvDistributionID]; ok {
		t.Errorf("users declares %s", storesapi.EnvDistributionID)
	}
	if _, ok := vars[config.EnvJWTSecretARN]; ok {
		t.Error("the secret's ARN is kept")
	}
	// The role and the log groups go, and what named them: a function's
	// Role is the placeholder, its LoggingConfig keeps its format (and
	// goes when it had nothing else), the stage writes no access log.
	for _, id := range []string{"FnRole", "FnLogs", "AccessLogs"} {
		if _, ok := r[id]; ok {
			t.Errorf("%s kept", id)
		}
	}
	logged := r["Logged"].(map[string]any)
	if fmt.Sprint(logged) != fmt.Sprint(map[string]any{"Type": "AWS::Lambda::Function", "Properties": map[string]any{
		"Role": samRoleARN, "LoggingConfig": map[string]any{"LogFormat": "JSON"},
	}}) {
		t.Errorf("Logged: %v", logged)
	}
	if p := r["Unlogged"].(map[string]any)["Properties"]; fmt.Sprint(p) != fmt.Sprint(map[string]any{"Role": samRoleARN}) {
		t.Errorf("Unlogged: %v", p)
	}
	if p := r["Stage"].(map[string]any)["Properties"]; fmt.Sprint(p) != fmt.Sprint(map[string]any{"StageName": "$default"}) {
		t.Errorf("Stage: %v", p)
	}
	// AND the original template is not changed
	if _, ok := tmpl["Resources"].(map[string]any)["FnAlias"]; !ok {
		t.Error("samTemplate changed its input")
	}
	// AND any other reference to a dropped resource, in whatever form,
	// fails the template rather than leaving it naming nothing
	for name, ref := range map[string]any{
		"Ref":            map[string]any{"Ref": "FnRole"},
		"Fn::GetAtt":     map[string]any{"Fn::GetAtt": []any{"FnLogs", "Arn"}},
		"Fn::GetAtt a.b": map[string]any{"Fn::GetAtt": "FnAlias.FunctionArn"},
		"Fn::Sub":        map[string]any{"Fn::Sub": "${FnRole.Arn}"},
		"Fn::Sub list":   map[string]any{"Fn::Sub": []any{"${FnVersion}", map[string]any{}}},
	} {
		for _, where := range []string{"a resource", "an output"} {
			bad := deepCopy(tmpl).(map[string]any)
			if where == "an output" {
				bad["Outputs"] = map[string]any{"Out": map[string]any{"Value": ref}}
			} else {
				bad["Resources"].(map[string]any)["Queue"] = map[string]any{"Type": "AWS::SQS::Queue", "Properties": map[string]any{"X": ref}}
			}
			if _, err := samTemplate(bad); err == nil || !strings.Contains(err.Error(), "refer to dropped") {
				t.Errorf("%s in %s: %v", name, where, err)
			}
		}
	}
}

// sam.env.json holds the local run's signing key: only its owner may
// read it.
func TestWriteSAM_EnvFileOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix file modes")
	}
	dataDir, out := t.TempDir(), t.TempDir()
	info := runinfo.Info{
		PID: os.Getpid(), DynamoDB: "http://127.0.0.1:43001", S3: "http://127.0.0.1:43002", SQS: "http://127.0.0.1:43003", CloudFront: "http://127.0.0.1:43004",
		Table: "bookplatform-local", MediaBucket: "bookplatform-media-local", MediaBaseURL: "http://127.0.0.1:8080/media",
		DistributionID: "E1LOCALSTORES", JWTSecret: "local-development-jwt-secret-not-for-production", Queues: map[string]string{},
	}
	for _, n := range queues.All {
		info.Queues[string(n)] = "http://127.0.0.1:43003/000000000000/" + string(n)
	}
	if err := runinfo.Write(dataDir, info); err != nil {
		t.Fatal(err)
	}
	if err := writeSAM(out, assembly.GetStackByName(samStack.StackName()).Template().(map[string]any), dataDir); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(out, samEnvFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s mode %v, want 0600", samEnvFile, st.Mode().Perm())
	}
}

// TestSAM_Size: the SAM template SAM CLI validates stays under
// CloudFormation's 500 resources with headroom, although the synthesis
// it is rewritten from (routes in the stack, aliases and versions) is
// over it.
func TestSAM_Size(t *testing.T) {
	st := samTemplateOf(t)
	n := len(st["Resources"].(map[string]any))
	synth := len(assembly.GetStackByName(samStack.StackName()).Template().(map[string]any)["Resources"].(map[string]any))
	t.Logf("SAM template: %d resources (synthesized: %d)", n, synth)
	byType := map[string]int{}
	for _, r := range st["Resources"].(map[string]any) {
		byType[fmt.Sprint(r.(map[string]any)["Type"])]++
	}
	for _, k := range slices.Sorted(maps.Keys(byType)) {
		t.Logf("  %-45s %d", k, byType[k])
	}
	if n > samMaxResources {
		t.Errorf("the SAM template has %d resources, over the %d this project allows (SAM CLI refuses 500)", n, samMaxResources)
	}
	// AND with every option on (OpenSearch, whose data access policy
	// names the functions' roles; WAF; domains; a mail domain) the
	// template is still made and fits.
	every := len(samTemplateFor(t, samEveryOptionStack)["Resources"].(map[string]any))
	t.Logf("SAM template with every option: %d resources", every)
	if every > samMaxResources {
		t.Errorf("the SAM template with every option has %d resources, over the %d this project allows", every, samMaxResources)
	}
}
