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
)

// The SDK service clients a function may link only when its group is
// granted that service's actions. (SQS cannot be told apart this way:
// the tracing every function has, otelaws, imports the SQS and SNS
// packages for their input types.)
const (
	s3Package         = "github.com/aws/aws-sdk-go-v2/service/s3"
	cloudFrontPackage = "github.com/aws/aws-sdk-go-v2/service/cloudfront"
)

// Each function links its own group and no other: its main names its
// group's constructor, and nothing it imports imports the list of groups
// or another group's package (shared/app, shared/api and the domain and
// storage packages stay free of them). Clients only some groups use are
// built by those groups, so a function depends on the S3 or CloudFront
// client only when its group is granted S3 or CloudFront actions. The
// dependencies are go list's for the Lambda build (linux/arm64, the
// lambda.norpc tag), of every directory under functions/.
func TestFunctions_linkOnlyTheirGroup(t *testing.T) {
	deps := functionDeps(t)
	byName := map[string]Function{}
	for _, f := range Functions() {
		byName[f.Name] = f
	}
	groupPkgs := groupPackages(t)
	self := reflect.TypeFor[Function]().PkgPath() // shared/groups

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
			if ds[s3Package] && len(f.MediaActions) == 0 {
				t.Errorf("links the S3 client but is granted no S3 action: %s", importChain(t, name, s3Package))
			}
			if ds[cloudFrontPackage] && len(f.CDNActions) == 0 {
				t.Errorf("links the CloudFront client but is granted no CloudFront action: %s", importChain(t, name, cloudFrontPackage))
			}
		})
	}
	// The checks above can see what they look for: the functions that
	// store images or custom domains do link those clients.
	for _, f := range Functions() {
		if len(f.MediaActions) > 0 && !deps[f.Name][s3Package] {
			t.Errorf("%s is granted S3 actions and does not link the S3 client: is the check looking at the right packages?", f.Name)
		}
		if len(f.CDNActions) > 0 && !deps[f.Name][cloudFrontPackage] {
			t.Errorf("%s is granted CloudFront actions and does not link its client: is the check looking at the right packages?", f.Name)
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
