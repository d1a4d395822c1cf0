// Path parameters for the typed client's calls (`api.GET("/v1/transcripts/{transcript_id}", onTranscript(id))`),
// the ones nearly every e2e test repeats.

export const onTranscript = (id: string) => ({ params: { path: { transcript_id: id } } });
export const onRoom = (id: string) => ({ params: { path: { room_id: id } } });
export const onRoomName = (name: string) => ({ params: { path: { room_name: name } } });
export const onMeeting = (id: string) => ({ params: { path: { meeting_id: id } } });
export const onRoomMeeting = (roomName: string, meetingId: string) => ({
  params: { path: { room_name: roomName, meeting_id: meetingId } },
});

/** A call's status and body (the data, or the refusal's body), for tests that compare both at once. */
export async function answer<D, E>(pending: Promise<{ data?: D; error?: E; response: Response }>) {
  const { data, error, response } = await pending;
  return { status: response.status, body: response.ok ? data : error };
}
