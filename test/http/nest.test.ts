// toonwire/nest beyond the shared matrix (which runs the orders example on both platforms):
// ValidationPipe failures as JSON Pointers, Nest's own 404 as the adapters' problem, Nest's
// HttpExceptions and toonwire problems wrapped in `cause`, and no FSTWRN004 on Fastify.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BadRequestException, NotFoundException } from '@nestjs/common';
import { startServer } from '../../examples/http/nest.js';
import { HttpProblem, notFoundProblem } from '../../src/http/index.js';
import { problemOf, validationIssues } from '../../src/http/nest.js';
import { profileOf, send } from './harness.js';

describe('problemOf', () => {
  it('takes a toonwire problem wrapped as the cause of a Nest exception as it is', () => {
    const problem = new HttpProblem({ status: 400, detail: 'bad', line: 2, column: 3 });
    assert.equal(problemOf(new BadRequestException('x', { cause: problem })), problem);
  });
  it("gives a Nest HttpException's status and message", () => {
    const problem = problemOf(new NotFoundException('No order 7')) as HttpProblem;
    assert.equal(problem.problem.status, 404);
    assert.equal(problem.problem.detail, 'No order 7');
  });
  it('writes the default ValidationPipe message list as errors', () => {
    const problem = problemOf(new BadRequestException(['a must be a string'])) as HttpProblem;
    assert.deepEqual(problem.problem.errors, [{ pointer: '', message: 'a must be a string' }]);
  });
});

describe('validationIssues', () => {
  it('locates nested failures by JSON Pointer, escaping ~ and /', () => {
    const issues = validationIssues([
      {
        property: 'items',
        children: [
          {
            property: '0',
            children: [{ property: 'a/b~c', constraints: { min: 'too small' }, children: [] }],
          },
        ],
      },
    ]);
    assert.deepEqual(issues, [{ pointer: '/items/0/a~1b~0c', message: 'too small' }]);
  });
});

for (const platform of ['express', 'fastify'] as const) {
  describe(`toonwire/nest on ${platform}`, async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }): void => {
      warnings.push(`${warning.code ?? ''} ${warning.message}`);
    };
    process.on('warning', onWarning);
    const server = await startServer({ platform, port: 0, host: '127.0.0.1' });
    after(async () => {
      process.off('warning', onWarning);
      await server.close();
    });

    it('gives ValidationPipe failures as a negotiated problem with JSON Pointers', async () => {
      const response = await send(server, {
        method: 'POST',
        path: '/orders',
        headers: { 'content-type': 'text/toon', accept: 'text/toon' },
        body: 'items[1]{sku,quantity,unitPriceCents}:\n  TEA,0,300',
      });
      assert.equal(response.status, 400, response.text);
      assert.equal(profileOf(response), 'problem');
      const problem = response.data as { errors: Array<{ pointer: string }> };
      assert.deepEqual(
        problem.errors.map((error) => error.pointer),
        ['/items/0/quantity'],
      );
    });

    it("answers a request no route matches with the adapters' 404 problem", async () => {
      const response = await send(server, {
        path: '/no/such?x=1',
        headers: { accept: 'text/toon' },
      });
      assert.equal(response.status, 404);
      assert.equal(profileOf(response), 'problem');
      assert.deepEqual(response.data, {
        ...notFoundProblem('GET', '/no/such').problem,
        instance: '/no/such',
      });
    });

    it("keeps Nest's error handler in place (no FSTWRN004: the plugin installs none)", () => {
      assert.deepEqual(
        warnings.filter((warning) => /FSTWRN004|error handler/i.test(warning)),
        [],
      );
    });
  });
}
