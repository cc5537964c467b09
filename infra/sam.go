package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
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
// that move them; the access policies (the functions' IAM policies, the
// queues' and buckets' resource policies, the OpenSearch collection's data
// access policy, which names the functions' roles) and the IAM roles (the
// functions' execution roles, the schedules'), which mean nothing to SAM
// CLI: it runs the functions in containers with the shell's credentials
// (the stand-ins accept any), and the deployed template's grants are
// tested on their own (grants tests, TestCallGrants); each function's
// Role becomes samRoleARN, as CloudFormation requires one. The log groups
// (the functions', the API's access log): SAM CLI prints a function's
// lines in the terminal and its local gateway writes no access log, so a
// function's LoggingConfig loses its LogGroup and keeps its format and
// levels, and the stage loses its AccessLogSettings. API Gateway's
// permissions to invoke the functions (SAM CLI's local gateway calls them
// itself); and the schedules (the pool and digest jobs, the key
// rotation), which SAM CLI never fires (sam local invoke runs a job with
// its event from events/). Without them the template stays under the
// 500 resources SAM CLI's validation allows (TestSAM_Size), its routes
// being in the stack itself. No reference to a dropped resource may
// remain: samTemplate fails on one (and
// TestTemplates_ReferencesResolveWithoutCycles checks the SAM template's
// references too).
var samDropped = []string{"AWS::Lambda::Alias", "AWS::Lambda::Version", "AWS::CodeDeploy::Application", "AWS::CodeDeploy::DeploymentGroup",
	"AWS::IAM::Policy", "AWS::IAM::Role", "AWS::SQS::QueuePolicy", "AWS::S3::BucketPolicy", "AWS::OpenSearchServerless::AccessPolicy",
	"AWS::Logs::LogGroup",
	"AWS::Lambda::Permission", "AWS::Scheduler::Schedule", "AWS::SecretsManager::RotationSchedule"}

// samRoleARN is every function's Role in the SAM template, its roles
// being dropped (samDropped): CloudFormation requires the property of an
// AWS::Lambda::Function, and a validator checks it is a role's ARN, but
// SAM CLI never assumes it (the container gets the shell's credentials).
// It names no role, in the account the local stand-ins use.
const samRoleARN = "arn:aws:iam::000000000000:role/sam-local-no-role"

// samTemplate returns the template SAM CLI resolves, from tmpl (the
// stack synthesized with SAM: true): every reference to a function's
// alias becomes the function's ARN, the resources of samDropped go (the
// aliases, versions and deployment groups, the roles and log groups, ...)
// with the properties naming a role or log group, and each function that
// builds the app declares the variables the env-vars file sets (the local
// signing key instead of the secret's ARN, the stand-ins' endpoints).
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
	// A resource depends on what remains of its DependsOn; and the
	// properties naming a dropped role or log group (samDropped) are
	// rewritten only where they name one, so that any other reference to
	// a dropped resource is still caught below.
	namesDropped := func(v any) bool {
		return slices.ContainsFunc(references(v), func(id string) bool { return dropped[id] })
	}
	for _, r := range resources {
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
		props, _ := res["Properties"].(map[string]any)
		switch res["Type"] {
		case "AWS::Lambda::Function":
			if namesDropped(props["Role"]) {
				props["Role"] = samRoleARN
			}
			if lc, ok := props["LoggingConfig"].(map[string]any); ok && namesDropped(lc["LogGroup"]) {
				delete(lc, "LogGroup")
				if len(lc) == 0 {
					delete(props, "LoggingConfig")
				}
			}
		case "AWS::ApiGatewayV2::Stage":
			if namesDropped(props["AccessLogSettings"]) {
				delete(props, "AccessLogSettings")
			}
		}
	}
	out["Resources"] = rewrite(resources, func(v map[string]any) (any, bool) {
		ref, ok := v["Ref"].(string)
		if !ok || len(v) != 1 {
			return nil, false
		}
		if t, ok := target[ref]; ok {
			return t, true
		}
		return nil, false
	})
	var missing []string
	for _, id := range slices.Concat(references(out["Resources"]), references(out["Outputs"])) {
		if dropped[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("sam: resources refer to dropped %v", slices.Compact(missing))
	}
	for _, r := range out["Resources"].(map[string]any) {
		res := r.(map[string]any)
		if res["Type"] != "AWS::Lambda::Function" {
			continue
		}
		env, _ := res["Properties"].(map[string]any)["Environment"].(map[string]any) // none on a function without variables
		vars, _ := env["Variables"].(map[string]any)
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

// references returns the logical IDs v (a template's resources, one
// resource, its outputs) names, as many times as it names them: by Ref,
// by Fn::GetAtt (either form), by the ${ID} or ${ID.Attribute} variables
// of Fn::Sub and by DependsOn, less the pseudo parameters (AWS::Region,
// ...) and a Sub's own variables. samTemplate's check that nothing names
// a dropped resource, and the tests' that every template's references
// resolve (TestTemplates_ReferencesResolveWithoutCycles), read them so.
func references(v any) []string {
	var out []string
	add := func(id string, local map[string]any) {
		if _, ok := local[id]; !ok && id != "" && !strings.HasPrefix(id, "AWS::") {
			out = append(out, id)
		}
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch k {
				case "Ref":
					if id, ok := x.(string); ok {
						add(id, nil)
						continue
					}
				case "Fn::GetAtt":
					switch a := x.(type) {
					case []any:
						if len(a) > 0 {
							add(fmt.Sprint(a[0]), nil)
							continue
						}
					case string:
						add(strings.SplitN(a, ".", 2)[0], nil)
						continue
					}
				case "Fn::Sub":
					text, local := x, map[string]any(nil)
					if a, ok := x.([]any); ok && len(a) == 2 {
						text = a[0]
						local, _ = a[1].(map[string]any)
					}
					if s, ok := text.(string); ok {
						for _, m := range subVariable.FindAllStringSubmatch(s, -1) {
							add(strings.SplitN(m[1], ".", 2)[0], local)
						}
					}
				case "DependsOn":
					switch d := x.(type) {
					case string:
						add(d, nil)
					case []any:
						for _, id := range d {
							add(fmt.Sprint(id), nil)
						}
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// subVariable is a variable of an Fn::Sub string; ${!Literal} is none.
var subVariable = regexp.MustCompile(`\$\{([^!}][^}]*)\}`)

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
