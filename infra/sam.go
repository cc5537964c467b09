package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bookplatform/backend/local/runinfo"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/s3media"
)

// Local runs through AWS SAM CLI (`make sam`; README, "Running under
// SAM"). SAM CLI maps an HTTP API route to a function by reading its
// integration's IntegrationUri, and an authorizer by its AuthorizerUri:
// both must name an AWS::Lambda::Function of the template (Fn::GetAtt
// Arn), whose code it finds from the CDK asset metadata (aws:asset:path).
// The deployed template names the functions' `live` aliases, which SAM
// cannot resolve, keeps the routes in nested stacks, and names the
// signing keys' secret rather than a key. So the app, synthesized with
// context sam=true (routes in the stack), writes beside its template a
// SAM one (samTemplate) and an env-vars file (samEnvVars) pointing the
// functions at the stand-ins of a running `make run`.

// CtxSAM is the context switch of the SAM synthesis.
const CtxSAM = "sam"

// SAM files, in the cloud assembly's directory (the asset paths of the
// functions' code are relative to it).
const (
	samTemplateFile = "sam.template.json"
	samEnvFile      = "sam.env.json"
)

// samEndpointVars are the SDK's endpoint overrides SAM's env-vars file
// sets on every function that builds the app (declared in samTemplate:
// SAM passes only variables the template declares).
// The checksum settings are the local run's too: the S3 stand-in cannot
// verify the trailing checksums the SDK would otherwise add.
var samEndpointVars = []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_CLOUDFRONT",
	"AWS_REQUEST_CHECKSUM_CALCULATION", "AWS_RESPONSE_CHECKSUM_VALIDATION"}

// samMaxResources is the most resources the SAM template (samTemplate's
// output) may have: CloudFormation's limit, which SAM CLI's validation
// enforces, less a headroom of 50 for the next groups (TestSAM_Size).
// samSynthResourceLimit is CDK's limit on the
// synthesis it is rewritten from, which still holds the aliases,
// versions and deployment groups the rewrite drops.
const (
	samMaxResources       = 450
	samSynthResourceLimit = 1000
)

// samPlaceholder is the template's value of a variable the env-vars file sets.
const samPlaceholder = "set-by-sam.env.json"

// samDropped are the resource types the SAM template leaves out: the
// aliases and versions SAM cannot resolve, and the CodeDeploy groups
// that move them; and the access policies (the functions' IAM policies,
// the queues' and buckets' resource policies), which mean nothing to SAM
// CLI: it runs the functions in containers with the stand-ins' dummy
// credentials, and the deployed template's grants are tested on their
// own (grants tests, TestCallGrants); API Gateway's permissions to
// invoke the functions (SAM CLI's local gateway calls them itself); and
// the schedules (the pool and digest jobs, the key rotation), which SAM
// CLI never fires (sam local invoke runs a job with its event from
// events/). Without them the template stays under the 500 resources SAM
// CLI's validation allows (TestSAM_Size), its routes being in the stack
// itself.
var samDropped = []string{"AWS::Lambda::Alias", "AWS::Lambda::Version", "AWS::CodeDeploy::Application", "AWS::CodeDeploy::DeploymentGroup",
	"AWS::IAM::Policy", "AWS::SQS::QueuePolicy", "AWS::S3::BucketPolicy",
	"AWS::Lambda::Permission", "AWS::Scheduler::Schedule", "AWS::SecretsManager::RotationSchedule"}

// samTemplate returns the template SAM CLI resolves, from tmpl (the
// stack synthesized with SAM: true): every reference to a function's
// alias becomes the function's ARN, the aliases, versions and deployment
// groups go, and each function that builds the app declares the
// variables the env-vars file sets (the local signing key instead of the
// secret's ARN, the stand-ins' endpoints).
func samTemplate(tmpl map[string]any) (map[string]any, error) {
	readsDistribution := map[string]bool{} // by function description
	for _, f := range groups.Functions() {
		if slices.Contains(f.Settings, storesapi.EnvDistributionID) {
			readsDistribution[FunctionDescription(f.Name)] = true
		}
	}
	out := deepCopy(tmpl).(map[string]any)
	resources, ok := out["Resources"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("sam: the template has no resources")
	}
	if nested := ofType(resources, "AWS::CloudFormation::Stack"); len(nested) > 0 {
		return nil, fmt.Errorf("sam: the template has nested stacks %v: synthesize with -c %s=true", slices.Sorted(maps.Keys(nested)), CtxSAM)
	}
	target := map[string]any{} // dropped alias → its function's ARN
	dropped := map[string]bool{}
	for id, r := range resources {
		typ := r.(map[string]any)["Type"].(string)
		if !slices.Contains(samDropped, typ) {
			continue
		}
		dropped[id] = true
		if typ == "AWS::Lambda::Alias" {
			fn, ok := r.(map[string]any)["Properties"].(map[string]any)["FunctionName"].(map[string]any)["Ref"].(string)
			if !ok {
				return nil, fmt.Errorf("sam: alias %s names no function of the template", id)
			}
			target[id] = map[string]any{"Fn::GetAtt": []any{fn, "Arn"}}
		}
	}
	for id := range dropped {
		delete(resources, id)
	}
	var missing []string
	out["Resources"] = rewrite(resources, func(v map[string]any) (any, bool) {
		ref, ok := v["Ref"].(string)
		if !ok || len(v) != 1 {
			return nil, false
		}
		if t, ok := target[ref]; ok {
			return t, true
		}
		if dropped[ref] {
			missing = append(missing, ref)
		}
		return nil, false
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("sam: resources refer to dropped %v", missing)
	}
	for _, r := range out["Resources"].(map[string]any) {
		res := r.(map[string]any)
		switch deps := res["DependsOn"].(type) {
		case string:
			if dropped[deps] {
				delete(res, "DependsOn")
			}
		case []any:
			kept := slices.DeleteFunc(deps, func(d any) bool { return dropped[fmt.Sprint(d)] })
			if len(kept) == 0 {
				delete(res, "DependsOn")
			} else {
				res["DependsOn"] = kept
			}
		}
		if res["Type"] != "AWS::Lambda::Function" {
			continue
		}
		vars, _ := res["Properties"].(map[string]any)["Environment"].(map[string]any)["Variables"].(map[string]any)
		if vars == nil {
			continue
		}
		if _, ok := vars[config.EnvJWTSecretARN]; ok {
			delete(vars, config.EnvJWTSecretARN)
			vars[config.EnvJWTSecret] = samPlaceholder
		}
		if _, app := vars[config.EnvTableName]; app {
			for _, e := range samEndpointVars {
				vars[e] = samPlaceholder
			}
			// Custom domains through the CloudFront stand-in, as on
			// make run, with or without a storefrontOrigin: on the
			// functions whose group reads the setting.
			desc, _ := res["Properties"].(map[string]any)["Description"].(string)
			if readsDistribution[desc] {
				vars[storesapi.EnvDistributionID] = samPlaceholder
			}
		}
	}
	return out, nil
}

// samEnvVars is SAM's env-vars file for tmpl (a samTemplate): for each
// function, by logical ID, the values of the variables it declares that
// differ locally, pointing at the stand-ins of the running local stack
// info. SAM runs functions in containers: loopback is the container's
// own, so hosts are host.docker.internal.
func samEnvVars(tmpl map[string]any, info runinfo.Info, queueURLs map[queues.Name]string) (map[string]map[string]string, error) {
	host := func(u string) string {
		return strings.Replace(strings.Replace(u, "127.0.0.1", "host.docker.internal", 1), "localhost", "host.docker.internal", 1)
	}
	local := map[string]string{
		config.EnvTableName:                info.Table,
		s3media.EnvBucket:                  info.MediaBucket,
		s3media.EnvBaseURL:                 info.MediaBaseURL,
		config.EnvJWTSecret:                info.JWTSecret,
		storesapi.EnvDistributionID:        info.DistributionID,
		"AWS_ENDPOINT_URL_DYNAMODB":        host(info.DynamoDB),
		"AWS_ENDPOINT_URL_S3":              host(info.S3),
		"AWS_ENDPOINT_URL_SQS":             host(info.SQS),
		"AWS_ENDPOINT_URL_CLOUDFRONT":      host(info.CloudFront),
		"AWS_REQUEST_CHECKSUM_CALCULATION": "when_required",
		"AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required",
	}
	for _, q := range queues.All {
		for _, n := range []queues.Name{q, q.DLQ()} {
			if u := queueURLs[n]; u != "" {
				local[n.URLEnv()] = host(u)
			}
		}
	}
	out := map[string]map[string]string{}
	for id, r := range ofType(tmpl["Resources"].(map[string]any), "AWS::Lambda::Function") {
		vars, _ := r["Properties"].(map[string]any)["Environment"].(map[string]any)["Variables"].(map[string]any)
		set := map[string]string{}
		for name := range vars {
			v, ok := local[name]
			if !ok {
				continue
			}
			if v == "" {
				return nil, fmt.Errorf("sam: function %s declares %s, which the local run does not say (is it current?)", id, name)
			}
			set[name] = v
		}
		if len(set) > 0 {
			out[id] = set
		}
	}
	return out, nil
}

// writeSAM writes the SAM template and env-vars file of tmpl into dir
// (the cloud assembly's directory). The env-vars file needs the running
// local stack's endpoints (runinfo): without one it says to start it.
func writeSAM(dir string, tmpl map[string]any, dataDir string) error {
	st, err := samTemplate(tmpl)
	if err != nil {
		return err
	}
	info, err := runinfo.Read(dataDir)
	if err != nil {
		return fmt.Errorf("sam: the env-vars file points the functions at the stand-ins of `make run`, whose ports are chosen at start: start it first (%w)", err)
	}
	queueURLs := map[queues.Name]string{}
	for name, u := range info.Queues {
		queueURLs[queues.Name(name)] = u
	}
	env, err := samEnvVars(st, info, queueURLs)
	if err != nil {
		return err
	}
	for name, v := range map[string]any{samTemplateFile: st, samEnvFile: env} {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			return err
		}
		write := func(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
		if name == samEnvFile {
			write = runinfo.WritePrivate // the local signing key
		}
		if err := write(filepath.Join(dir, name), append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// ofType returns the resources of type typ.
func ofType(resources map[string]any, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range resources {
		if m, ok := r.(map[string]any); ok && m["Type"] == typ {
			out[id] = m
		}
	}
	return out
}

// rewrite walks v, replacing each object f replaces.
func rewrite(v any, f func(map[string]any) (any, bool)) any {
	switch v := v.(type) {
	case map[string]any:
		if r, ok := f(v); ok {
			return r
		}
		for k, x := range v {
			v[k] = rewrite(x, f)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = rewrite(x, f)
		}
		return v
	}
	return v
}

func deepCopy(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
