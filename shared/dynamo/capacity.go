package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/effects"
)

// consumedCapacity asks DynamoDB for the capacity of every call, per
// table and index (ReturnConsumedCapacity INDEXES: DynamoDB Local
// answers it too, and it costs nothing), and notes it in the call's
// metadata for callstats.Middleware to record (callstats.SetCapacity).
// Request units are what DynamoDB bills on demand, so the cost benchmark
// (local/bench cost) prices requests from real calls rather than from an
// estimate of item sizes. It runs inside callstats.Middleware: NewClient
// registers it after.
func consumedCapacity(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ConsumedCapacity",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			askCapacity(in.Parameters)
			out, md, err := next.HandleInitialize(ctx, in)
			if err == nil {
				c := capacityOf(out.Result, effects.IsRead(middleware.GetOperationName(ctx)))
				callstats.SetCapacity(&md, atLeastBilled(in.Parameters, c))
			}
			return out, md, err
		}), middleware.After)
}

// askCapacity sets ReturnConsumedCapacity on every input that has it.
func askCapacity(input any) {
	const all = types.ReturnConsumedCapacityIndexes
	switch in := input.(type) {
	case *dynamodb.GetItemInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.PutItemInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.UpdateItemInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.DeleteItemInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.QueryInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.ScanInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.BatchGetItemInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.BatchWriteItemInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.TransactGetItemsInput:
		in.ReturnConsumedCapacity = all
	case *dynamodb.TransactWriteItemsInput:
		in.ReturnConsumedCapacity = all
	}
}

// capacityOf sums what an output reports. A call reports either its
// table's and indexes' shares (INDEXES) or only a total (a service that
// ignores the detail): the total then counts as the table's, a read for
// a read operation and a write for any other.
func capacityOf(output any, read bool) callstats.Capacity {
	var ccs []types.ConsumedCapacity
	switch out := output.(type) {
	case *dynamodb.GetItemOutput:
		ccs = one(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		ccs = one(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		ccs = one(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		ccs = one(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		ccs = one(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		ccs = one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		ccs = out.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		ccs = out.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		ccs = out.ConsumedCapacity
	case *dynamodb.TransactWriteItemsOutput:
		ccs = out.ConsumedCapacity
	}
	var sum callstats.Capacity
	for _, cc := range ccs {
		if cc.Table == nil && len(cc.GlobalSecondaryIndexes) == 0 {
			sum = sum.Add(split(aws.ToFloat64(cc.CapacityUnits), aws.ToFloat64(cc.ReadCapacityUnits), aws.ToFloat64(cc.WriteCapacityUnits), read, false))
			continue
		}
		if t := cc.Table; t != nil {
			sum = sum.Add(split(aws.ToFloat64(t.CapacityUnits), aws.ToFloat64(t.ReadCapacityUnits), aws.ToFloat64(t.WriteCapacityUnits), read, false))
		}
		for _, ix := range cc.GlobalSecondaryIndexes {
			sum = sum.Add(split(aws.ToFloat64(ix.CapacityUnits), aws.ToFloat64(ix.ReadCapacityUnits), aws.ToFloat64(ix.WriteCapacityUnits), read, true))
		}
		for _, ix := range cc.LocalSecondaryIndexes {
			sum = sum.Add(split(aws.ToFloat64(ix.CapacityUnits), aws.ToFloat64(ix.ReadCapacityUnits), aws.ToFloat64(ix.WriteCapacityUnits), read, true))
		}
	}
	return sum
}

func one(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

// split places one reported share: its read and write units when given,
// else its total as the operation's kind.
func split(total, reads, writes float64, read, index bool) callstats.Capacity {
	if reads == 0 && writes == 0 {
		if read {
			reads = total
		} else {
			writes = total
		}
	}
	if index {
		return callstats.Capacity{IndexRead: reads, IndexWrite: writes}
	}
	return callstats.Capacity{TableRead: reads, TableWrite: writes}
}

// atLeastBilled raises a batch read's, a query's or a transaction's share
// to the least DynamoDB bills for it by its documented rules, where
// DynamoDB Local reports less. Local counts a BatchGetItem's missing keys
// and a Query or Scan that finds nothing as free, and a transaction's
// items in other partitions than one as free; DynamoDB bills each key of
// a BatchGetItem as a GetItem (at least half a unit, eventually
// consistent; one, strongly), a Query or Scan at least as one such read,
// and each item of a transaction twice its single-item units (at least
// two). DynamoDB itself never reports less than these floors, so in AWS
// this changes nothing.
func atLeastBilled(input any, c callstats.Capacity) callstats.Capacity {
	var read, write float64
	switch in := input.(type) {
	case *dynamodb.BatchGetItemInput:
		for _, ka := range in.RequestItems {
			unit := 0.5
			if aws.ToBool(ka.ConsistentRead) {
				unit = 1
			}
			read += unit * float64(len(ka.Keys))
		}
	case *dynamodb.QueryInput:
		return atLeastOneRead(c, in.IndexName, in.ConsistentRead)
	case *dynamodb.ScanInput:
		return atLeastOneRead(c, in.IndexName, in.ConsistentRead)
	case *dynamodb.TransactGetItemsInput:
		read = 2 * float64(len(in.TransactItems))
	case *dynamodb.TransactWriteItemsInput:
		write = 2 * float64(len(in.TransactItems))
	}
	c.TableRead = max(c.TableRead, read)
	c.TableWrite = max(c.TableWrite, write)
	return c
}

// atLeastOneRead raises a Query's or Scan's read to one read of a missing
// item (half a unit eventually consistent, one strongly), on the index
// it read or the table.
func atLeastOneRead(c callstats.Capacity, index *string, consistent *bool) callstats.Capacity {
	unit := 0.5
	if aws.ToBool(consistent) {
		unit = 1
	}
	if index != nil {
		c.IndexRead = max(c.IndexRead, unit)
	} else {
		c.TableRead = max(c.TableRead, unit)
	}
	return c
}
