package groups

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/httpapi"
)

// The SDK service clients a function may link only when its group calls
// that service, and how the function list says it does: a grant of its
// actions, a queue it sends to. A client linked without use costs its
// function binary size and package init on every cold start.
var sdkClients = []struct {
	name, pkg string
	uses      func(Function) bool
}{
	{"S3", "github.com/aws/aws-sdk-go-v2/service/s3", func(f Function) bool { return len(f.MediaActions) > 0 }},
	{"CloudFront", "github.com/aws/aws-sdk-go-v2/service/cloudfront", func(f Function) bool { return len(f.CDNActions) > 0 }},
	// Only a sender calls SQS: a worker's messages come from Lambda's
	// event source (the local run's poller, sqspoll, is not in a function).
	{"SQS", "github.com/aws/aws-sdk-go-v2/service/sqs", func(f Function) bool { return len(f.Sends) > 0 }},
	// Email (shared/mail/sesmail): the functions granted SES actions.
	{"SES", "github.com/aws/aws-sdk-go-v2/service/sesv2", func(f Function) bool { return len(f.MailActions) > 0 }},
	// Nothing publishes to SNS: linking it was otelaws's doing.
	{"SNS", "github.com/aws/aws-sdk-go-v2/service/sns", func(Function) bool { return false }},
	{"Secrets Manager", "github.com/aws/aws-sdk-go-v2/service/secretsmanager", func(f Function) bool {
		return readsSigningKeys(f) || readsSecret(f)
	}},
	// A stream's records reach a function as Lambda events; only a
	// function granted the stream's read actions would call its API.
	{"DynamoDB Streams", "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams", func(f Function) bool {
		return slices.Contains(f.TableActions, "dynamodb:GetRecords")
	}},
}

// readsSigningKeys tells a function that reads the access-token keys
// from Secrets Manager: the authorizer and the rotation function, and a
// group that verifies a token (a route that reads one) or seals
// idempotency records with the keys.
func readsSigningKeys(f Function) bool {
	if f.Authorizer || f.KeyRotation {
		return true
	}
	// A worker is no Keyless group: app.FromEnv loads the keys for it,
	// and the point-of-sale worker derives its local token key from them.
	if f.Worker != nil {
		return true
	}
	// A scheduled job that is no Keyless one: the email digest signs
	// its unsubscribe links with a key derived from them.
	if f.Schedule != "" && !f.Keyless {
		return true
	}
	return slices.ContainsFunc(f.Routes, func(r httpapi.Route) bool { return r.Auth != httpapi.AuthNone || r.Idempotent })
}

// readsSecret reports whether f's group reads a secret of its own from
// Secrets Manager (a setting *_SECRET_ARN: the payment webhook's signing
// secret).
func readsSecret(f Function) bool {
	return slices.ContainsFunc(f.Settings, func(s string) bool { return strings.HasSuffix(s, "_SECRET_ARN") })
}

// linkedWithoutUse are the functions known to link a client their group
// does not call, each with the reason; the test fails once one no longer
// does, so the list only shrinks.
var linkedWithoutUse = map[string]map[string]string{
	// shared/app loads the signing keys at start-up for every HTTP
	// function, whether or not its routes read a token.
	"health": {"Secrets Manager": "shared/app reads the signing keys at start-up"},
	"docs":   {"Secrets Manager": "shared/app reads the signing keys at start-up"},
	"relay":  {"Secrets Manager": "shared/app reads the signing keys at start-up"},
	// The pool job starts as the relay does (app.StartJob).
	"poolpayouts": {"Secrets Manager": "shared/app reads the signing keys at start-up"},
}

// Each function links its own group and no other: its main names its
// group's constructor, and nothing it imports imports the list of groups,
// another group's package or the groups' test support (shared/app,
// shared/api and the domain and storage packages stay free of them).
// Clients only some groups use are
// built by those groups, so a function depends on an SDK client only when
// its group calls that service (sdkClients), but for the known
// exceptions of linkedWithoutUse. The dependencies are go list's for the
// Lambda build (linux/arm64, the lambda.norpc tag), of every directory
// under functions/.
func TestFunctions_linkOnlyTheirGroup(t *testing.T) {
	deps := functionDeps(t)
	byName := map[string]Function{}
	for _, f := range Functions() {
		byName[f.Name] = f
	}
	groupPkgs := groupPackages(t)
	self := reflect.TypeFor[Function]().PkgPath() // shared/groups
	// What the groups declare for the central tests (their scenario
	// steps, their routes' actions) is test support, every piece of it
	// built on shared/api/apitest.
	testSupport := reflect.TypeFor[apitest.Step]().PkgPath()

	for name, ds := range deps {
		t.Run(name, func(t *testing.T) {
			f, ok := byName[name]
			if !ok {
				t.Fatalf("functions/%s is in no entry of Functions()", name)
			}
			if own, isGroup := groupPkgs[name]; isGroup && !ds[own] {
				t.Errorf("does not link its group's package %s: its main is app.Start(%s.Group)", own, filepath.Base(own))
			}
			for g, pkg := range groupPkgs {
				if g != name && ds[pkg] {
					t.Errorf("links group %s (%s): %s", g, pkg, importChain(t, name, pkg))
				}
			}
			if ds[self] {
				t.Errorf("links the list of every group (%s): %s", self, importChain(t, name, self))
			}
			if ds[testSupport] {
				t.Errorf("links the central tests' support (%s): %s", testSupport, importChain(t, name, testSupport))
			}
			for _, c := range sdkClients {
				linked, used := ds[c.pkg], c.uses(f)
				why, known := linkedWithoutUse[name][c.name]
				switch {
				case linked && !used && !known:
					t.Errorf("links the %s client but its group does not call %s: %s", c.name, c.name, importChain(t, name, c.pkg))
				case known && (used || !linked):
					t.Errorf("is listed in linkedWithoutUse for %s (%s) but no longer links it without use: remove the entry", c.name, why)
				}
			}
		})
	}
	// The checks above can see what they look for: a function that calls
	// a service does link its client.
	for _, f := range Functions() {
		for _, c := range sdkClients {
			if _, built := deps[f.Name]; built && c.uses(f) && !deps[f.Name][c.pkg] {
				t.Errorf("%s calls %s and does not link its client %s: is the check looking at the right packages?", f.Name, c.name, c.pkg)
			}
		}
	}
}

// groupPackages maps each group's name to the package of its
// constructor, as the list names it.
func groupPackages(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, build := range list {
		g := build(api.Deps{})
		fn := runtime.FuncForPC(reflect.ValueOf(build).Pointer()).Name() // ".../shared/api/clubsapi.Group"
		pkg, _, ok := strings.Cut(fn[strings.LastIndex(fn, "/")+1:], ".")
		if !ok {
			t.Fatalf("group %s: cannot tell the package of %s", g.Name, fn)
		}
		out[g.Name] = fn[:strings.LastIndex(fn, "/")+1] + pkg
	}
	return out
}

// lambdaList runs go list from the module root with the Lambda build's
// platform and tags (Makefile, LAMBDA_BUILD).
func lambdaList(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-tags", "lambda.norpc"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, stderr.String())
	}
	return out
}

// functionDeps is every function's set of dependencies (its package's
// Deps: everything it links), by its directory's name.
func functionDeps(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	lines := strings.Split(strings.TrimSpace(string(lambdaList(t, "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./functions/..."))), "\n")
	for _, l := range lines {
		fields := strings.Fields(l)
		if len(fields) == 0 {
			continue
		}
		set := map[string]bool{}
		for _, d := range fields[1:] {
			set[d] = true
		}
		out[filepath.Base(fields[0])] = set
	}
	if len(out) < 2 {
		t.Fatalf("go list found %d functions under functions/", len(out))
	}
	return out
}

// importChain names how function name comes to depend on pkg: the
// shortest chain of imports from its main, to point at the import to
// remove.
func importChain(t *testing.T, name, pkg string) string {
	t.Helper()
	imports := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(lambdaList(t, "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./functions/"+name))), "\n") {
		fields := strings.Fields(l)
		if len(fields) > 0 {
			imports[fields[0]] = fields[1:]
		}
	}
	var root string
	for p := range imports {
		if strings.HasSuffix(p, "/functions/"+name) {
			root = p
		}
	}
	prev := map[string]string{root: ""}
	for queue := []string{root}; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if p == pkg {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return strings.Join(chain, " → ")
		}
		for _, next := range imports[p] {
			if _, seen := prev[next]; !seen {
				prev[next] = p
				queue = append(queue, next)
			}
		}
	}
	return "(no import chain found)"
}
