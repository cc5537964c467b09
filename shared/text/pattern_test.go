package text

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPattern_CompilesOnceAtFirstMatch(t *testing.T) {
	p := NewPattern(`^[a-z]+$`)
	assert.Equal(t, `^[a-z]+$`, p.String())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { assert.True(t, p.MatchString("abc")) })
	}
	wg.Wait()
	assert.False(t, p.MatchString("ab1"))

	bad := NewPattern(`(`)
	assert.Panics(t, func() { bad.MatchString("x") }, "a malformed expression panics at its first match")
}
