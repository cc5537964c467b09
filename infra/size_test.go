package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
)

// maxStackResources is the most resources a synthesized stack, nested
// ones included, may have: CloudFormation refuses a template over 500,
// and the 100 between are the next groups' headroom (README, "Resources
// per stack").
const maxStackResources = 400

// stackTemplates returns the synthesized template of s and of every
// stack nested in it, by construct path.
func stackTemplates(t *testing.T, s awscdk.Stack) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	out[*s.Node().Path()] = assembly.GetStackByName(s.StackName()).Template().(map[string]any)
	for _, c := range *s.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		if !*awscdk.NestedStack_IsNestedStack(c) {
			continue
		}
		ns := c.(awscdk.NestedStack)
		b, err := os.ReadFile(filepath.Join(*assembly.Directory(), *ns.TemplateFile()))
		if err != nil {
			t.Fatal(err)
		}
		var tmpl map[string]any
		if err := json.Unmarshal(b, &tmpl); err != nil {
			t.Fatal(err)
		}
		out[*ns.Node().Path()] = tmpl
	}
	return out
}

// TestStackSize fails when any stack, nested ones included, has more
// than maxStackResources resources, and logs every stack's count (go
// test -v -run TestStackSize ./infra prints the README's table).
func TestStackSize(t *testing.T) {
	for _, s := range []awscdk.Stack{deployedStack, stack, hardenedStack} {
		templates := stackTemplates(t, s)
		paths := slices.Sorted(func(yield func(string) bool) {
			for p := range templates {
				if !yield(p) {
					return
				}
			}
		})
		total := 0
		for _, p := range paths {
			n := len(templates[p]["Resources"].(map[string]any))
			total += n
			t.Logf("%-60s %4d resources", p, n)
			if n > maxStackResources {
				t.Errorf("%s has %d resources, over the %d this project allows (CloudFormation refuses 500)", p, n, maxStackResources)
			}
		}
		t.Logf("%-60s %4d resources in %d stacks", *s.StackName()+" (all)", total, len(paths))
	}
}
