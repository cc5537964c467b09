# The two commands a new user needs: `make run` and `make test`.
# Everything else is installed by these targets (Go modules, npm packages);
# what cannot be installed from here (Go, Node.js, Java) is named clearly.

SHELL := /bin/bash
GO    ?= go
PORT  ?= 8080
export PORT
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

FUNCTIONS := $(notdir $(wildcard functions/*))
LAMBDA_BUILD := GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath -ldflags='-s -w'

.PHONY: help deps check-go check-node check-java run test vet build synth sam bench fuzz openapi examples reset clean

help:
	@echo "make run    - serve the whole API on 127.0.0.1:$(PORT) with local DynamoDB, S3 and SQS, demo data loaded"
	@echo "make test   - go vet, every test against DynamoDB Local, the CDK assertions"
	@echo "make build  - one linux/arm64 bootstrap per function under build/<function>/"
	@echo "make synth  - synthesize the CDK app into cdk.out/"
	@echo "make sam    - with make run going: cdk.out.sam/sam.template.json and sam.env.json for sam local"
	@echo "make bench  - binary sizes, cold start, DynamoDB calls per endpoint, load figures, catalog import and search"
	@echo "make fuzz   - run every Go fuzz target for FUZZTIME each (default 1m); make test runs their seed corpora"
	@echo "make openapi - write the API reference (docs/openapi.json) and the copies the docs group serves"
	@echo "make examples - record the reference's examples from the call scenario, then make openapi"
	@echo "make reset  - delete the local run's data (.local/)"

check-go:
	@command -v $(GO) >/dev/null || { echo "error: Go 1.26 or newer is required (https://go.dev/dl/)"; exit 1; }

check-node:
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "error: Node.js 20+ with npm is required (CDK CLI, DynamoDB Local package): apt-get install nodejs npm"; exit 1; }

check-java:
	@command -v java >/dev/null || { echo "error: Java 17+ is required to run DynamoDB Local (apt-get install openjdk-17-jre-headless)"; exit 1; }
	@v=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1); \
	[ "$${v:-0}" -ge 17 ] 2>/dev/null || { echo "error: Java 17+ is required to run DynamoDB Local (apt-get install openjdk-17-jre-headless); found: $$(java -version 2>&1 | head -n1)"; exit 1; }

node_modules/.installed: package.json package-lock.json | check-node
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# tools/ is a module of its own (the pinned client generators, which the
# contract test in local/clientgen runs): its modules are downloaded too.
deps: check-go node_modules/.installed
	$(GO) mod download
	cd tools && $(GO) mod download

# Built, then exec'd rather than `go run`: the server is then make's own
# child, so a SIGTERM sent to make reaches it and it shuts down (stopping
# DynamoDB Local); go run would die and leave the server running.
run: deps check-java
	$(GO) build -o .local/bin/local ./local
	exec .local/bin/local

vet: deps
	$(GO) vet ./...

# One DynamoDB Local serves every test package (withdynamodb sets
# TEST_DYNAMODB_ENDPOINT): one JVM start instead of one per package.
test: deps check-java vet
	$(GO) run ./local/withdynamodb $(GO) test -count=1 -timeout 30m ./...

# Every fuzz target of the module, one after the other, FUZZTIME each.
# `make test` already runs each target's seed corpus; this searches
# beyond it. A failing input is saved under the package's testdata/fuzz/
# and becomes part of the seed corpus: commit it with the fix.
FUZZTIME ?= 1m
fuzz: check-go
	@for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$target ($$pkg), $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

build: check-go
	@rm -rf build
	@for f in $(FUNCTIONS); do \
		echo "build/$$f/bootstrap"; \
		$(LAMBDA_BUILD) -o build/$$f/bootstrap ./functions/$$f || exit 1; \
	done

synth: deps build
	npx cdk synth --quiet

# What `sam local start-api` and `sam local invoke` need (README, "Running
# under SAM"): the app synthesized with -c sam=true (routes in the stack,
# no nested stacks) writes a template SAM resolves and an env-vars file
# pointing the functions at the stand-ins of the running `make run`.
sam: deps build
	npx cdk synth --quiet -c sam=true -o cdk.out.sam
	@echo "sam local start-api -t cdk.out.sam/sam.template.json --env-vars cdk.out.sam/sam.env.json"

# Sizes of the bootstraps `build` just made, cold starts, DynamoDB calls per
# endpoint, load on the local run, catalog import time by size and search
# latency with 10,000 books (the bench sets BENCH_SEARCH for that test);
# local/bench says how each is measured.
# The report goes to stdout and bench-out/report.txt.
bench: deps check-java build
	$(GO) run ./local/bench all -out bench-out/report.txt

# The API reference: the document shared/openapi builds from the route
# tables (checked as OpenAPI 3.1) to docs/openapi.json, and what the docs
# group embeds: that document and the renderer of the pinned npm package,
# gzip-compressed, with the renderer's licences. All are committed, so a
# clean clone builds without npm; tests fail when they are not current.
DOCS_ASSETS := shared/api/docsapi/assets
REDOC       := node_modules/redoc

openapi: check-go node_modules/.installed
	$(GO) run ./shared/openapi/cmd/openapi -o docs/openapi.json
	gzip -9 -n -c docs/openapi.json > $(DOCS_ASSETS)/openapi.json.gz.tmp
	gzip -9 -n -c $(REDOC)/bundles/redoc.standalone.js > $(DOCS_ASSETS)/redoc.standalone.js.gz.tmp
	mv $(DOCS_ASSETS)/openapi.json.gz.tmp $(DOCS_ASSETS)/openapi.json.gz
	mv $(DOCS_ASSETS)/redoc.standalone.js.gz.tmp $(DOCS_ASSETS)/redoc.standalone.js.gz
	cp $(REDOC)/LICENSE $(DOCS_ASSETS)/redoc.LICENSE
	cp $(REDOC)/bundles/redoc.standalone.js.LICENSE.txt $(DOCS_ASSETS)/redoc.standalone.js.LICENSE.txt

# The reference's examples (shared/openapi/examples.json): the call
# benchmark's scenario run once against DynamoDB Local, as the service
# answered it, then merged into the reference. Run it when an operation
# is added or its bodies change: make test fails until it is.
examples: deps check-java
	$(GO) run ./local/bench examples
	$(MAKE) openapi

reset:
	rm -rf .local
	@echo "local data removed; the next 'make run' starts from demo data"

clean:
	rm -rf build cdk.out cdk.out.sam bench-out
