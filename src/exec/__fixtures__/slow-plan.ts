// Plan used by the SIGKILL test (trace.test.ts) and its child process (slow-run.ts).
import { literal, type Plan, ref } from '../../plan/index.js';

export const slowPlan: Plan = {
  steps: [
    { id: 'w1', app: 'Weather', api: 'getweather', args: { city: literal('Rome') }, outputs: ['city'] },
    { id: 'w2', app: 'Weather', api: 'getweather', args: { city: literal('Oslo') }, outputs: ['city'] },
    { id: 'slow1', app: 'Travel', api: 'findattractions', args: { location: ref('w1', 'city') }, outputs: [] },
    { id: 'slow2', app: 'Travel', api: 'findattractions', args: { location: ref('w2', 'city') }, outputs: [] },
    { id: 'slow3', app: 'Media', api: 'findmovies', args: { genre: literal('Comedy') }, outputs: ['title'] },
    { id: 'after', app: 'Media', api: 'playmovie', args: { title: ref('slow3', 'title') }, outputs: [] },
  ],
};
