package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

// Every reference in every template, nested ones included, and in the
// SAM template (which drops resources others name: samTemplate), names a
// resource, a parameter or a pseudo parameter of that template, and the
// references and DependsOn between a template's resources form no cycle.
// CloudFormation refuses either at deploy time, synthesis notices
// neither, and both are easy to make by moving resources between a stack
// and its nested stacks: CDK resolves a reference across stacks only in
// resource properties, not in an update policy (newOperationsStack), and
// a nested stack that read what reads it would close a cycle.
func TestTemplates_ReferencesResolveWithoutCycles(t *testing.T) {
	templates := map[string]map[string]any{"SAM template": samTemplateOf(t), "SAM template, every option": samTemplateFor(t, samEveryOptionStack)}
	for _, s := range []awscdk.Stack{deployedStack, stack, hardenedStack} {
		maps.Copy(templates, stackTemplates(t, s))
	}
	for path, tmpl := range templates {
		resources := tmpl["Resources"].(map[string]any)
		params, _ := tmpl["Parameters"].(map[string]any)
		edges := map[string][]string{}
		refs := map[string][]string{"the outputs": references(tmpl["Outputs"])}
		for id, r := range resources {
			refs[id] = references(r)
		}
		for id, targets := range refs {
			for _, target := range targets {
				_, isResource := resources[target]
				_, isParam := params[target]
				switch {
				case isResource:
					edges[id] = append(edges[id], target)
				case !isParam:
					t.Errorf("%s: %s refers to %s, which the template does not have", path, id, target)
				}
			}
		}
		if cycle := findCycle(edges); cycle != nil {
			t.Errorf("%s: circular dependency %s", path, strings.Join(cycle, " -> "))
		}
	}
}

// What references reads as a reference: Ref, Fn::GetAtt in either form,
// Fn::Sub's variables (not its own, nor a ${!literal}) and DependsOn; not
// the pseudo parameters.
func TestReferences(t *testing.T) {
	got := references(map[string]any{
		"DependsOn": []any{"A"},
		"Properties": map[string]any{
			"B": map[string]any{"Ref": "B"}, "Region": map[string]any{"Ref": "AWS::Region"},
			"C": map[string]any{"Fn::GetAtt": []any{"C", "Arn"}}, "D": map[string]any{"Fn::GetAtt": "D.Arn"},
			"E": map[string]any{"Fn::Sub": "arn:${AWS::Partition}:x:${E}:${F.Arn}/${!G}"},
			"H": map[string]any{"Fn::Sub": []any{"${H}-${own}", map[string]any{"own": map[string]any{"Ref": "I"}}}},
		},
	})
	slices.Sort(got)
	if want := []string{"A", "B", "C", "D", "E", "F", "H", "I"}; !slices.Equal(got, want) {
		t.Errorf("references %v, want %v", got, want)
	}
}

// findCycle returns a cycle of the graph, or nil.
func findCycle(edges map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(string) []string
	visit = func(n string) []string {
		state[n] = open
		stack = append(stack, n)
		for _, m := range edges[n] {
			switch state[m] {
			case open:
				i := slices.Index(stack, m)
				return append(slices.Clone(stack[i:]), m)
			case unseen:
				if c := visit(m); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return nil
	}
	nodes := make([]string, 0, len(edges))
	for n := range edges {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		if state[n] == unseen {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

func TestFindCycle(t *testing.T) {
	if c := findCycle(map[string][]string{"a": {"b", "c"}, "b": {"c"}, "c": nil}); c != nil {
		t.Errorf("a graph without cycle: %v", c)
	}
	if c := findCycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}); len(c) != 4 || c[0] != c[3] {
		t.Errorf("a -> b -> c -> a: %v", c)
	}
}
