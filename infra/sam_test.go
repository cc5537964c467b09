package main

import (
	"fmt"
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
	st, err := samTemplate(assembly.GetStackByName(samStack.StackName()).Template().(map[string]any))
	if err != nil {
		t.Fatal(err)
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
	// AND the original template is not changed
	if _, ok := tmpl["Resources"].(map[string]any)["FnAlias"]; !ok {
		t.Error("samTemplate changed its input")
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
}
